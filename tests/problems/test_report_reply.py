"""A reply to a problem report reaches its student, as a notice on their home page in the
report's own course (issue 49)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.offerings.models import OfferingRole
from tests.problems.test_reports_per_offering import SECOND, _offerings, _person, _reports
from tests.users.helpers import form_token, logged_in_client, login, make_instructor


def test_the_student_reads_the_reply_on_their_home_page(client: TestClient) -> None:
    _, _, c = _offerings()
    student = _person("s@example.org", [(c, OfferingRole.student)])
    teacher = _person("t@example.org", [(c, OfferingRole.instructor)])
    client.post(
        f"/courses/{SECOND}/problems",
        data={"kind": "exercise", "slug": "split-heads", "message": "Case 3 looks wrong."},
        headers=student,
    )
    assert _reports() == [("Case 3 looks wrong.", c)]
    listing = client.get(
        f"/courses/{SECOND}/offerings/{c}/instructor/problems", headers=teacher
    ).text
    report_id = listing.split('id="problem-', 1)[1].split('"', 1)[0]
    too_long = client.post(
        f"/courses/{SECOND}/offerings/{c}/instructor/problems/{report_id}/resolve",
        data={"reply": "x" * 4001},
        headers=teacher,
    )
    assert too_long.status_code == 422
    resolved = client.post(
        f"/courses/{SECOND}/offerings/{c}/instructor/problems/{report_id}/resolve",
        data={"reply": "Thanks: case 3's expected output is fixed."},
        headers=teacher,
        follow_redirects=False,
    )
    assert resolved.status_code == 303
    home = client.get(f"/courses/{SECOND}/", headers=student).text
    notes = home.split('id="notes-h"', 1)[1].split("</section>", 1)[0]
    assert "A reply to your report" in notes and "case 3&#39;s expected output is fixed" in notes
    assert f'href="/courses/{SECOND}/exercises/split-heads"' in notes


def test_the_resolve_form_takes_a_reply(client: TestClient) -> None:
    stu = logged_in_client(client, "ada@example.org")
    page = client.get("/exercises/position-embedding-gather").text
    sent = client.post(
        "/problems",
        data={
            "csrf_token": form_token(page.split('class="report-problem-form', 1)[1]),
            "kind": "exercise",
            "slug": "position-embedding-gather",
            "message": "The statement's example is off by one.",
        },
    )
    assert sent.status_code == 200
    prof = logged_in_client(client, "prof@example.org", name="Prof")
    make_instructor(prof.id)
    listing = client.get("/instructor/problems").text
    form = listing.split('id="problem-', 1)[1]
    report_id = form.split('"', 1)[0]
    done = client.post(
        f"/instructor/problems/{report_id}/resolve",
        data={"csrf_token": form_token(form), "reply": "Fixed, thank you."},
        follow_redirects=False,
    )
    assert done.status_code == 303
    assert "Your reply: Fixed, thank you." in client.get("/instructor/problems?show=resolved").text
    client.post("/logout", data={"csrf_token": form_token(client.get("/").text)})
    login(client, stu.email)
    assert "Fixed, thank you." in client.get("/").text.split('id="notes-h"', 1)[1]
