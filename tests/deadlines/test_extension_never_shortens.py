"""An extension never shortens a deadline: the later of it and the class's date applies."""

from __future__ import annotations

import datetime as dt

from app.deadlines.models import DeadlineExtension
from app.deadlines.policy import DEFAULT
from app.deadlines.rules import Dates
from app.deadlines.term import StudentTerm

DUE = dt.datetime(2027, 3, 1, 17, tzinfo=dt.UTC)


def test_the_later_of_an_extension_and_the_date_applies() -> None:
    earlier = DeadlineExtension(kind="quiz", slug="q", due_at=DUE - dt.timedelta(days=1), reason="")
    later = DeadlineExtension(kind="quiz", slug="r", due_at=DUE + dt.timedelta(days=1), reason="")
    term = StudentTerm(DEFAULT, {}, {("quiz", "q"): earlier, ("quiz", "r"): later})
    assert term.item("quiz", "q", DUE).due == DUE and not term.item("quiz", "q", DUE).extended
    assert term.item("quiz", "r", DUE).due == DUE + dt.timedelta(days=1)
    dues: dict[tuple[str, str], dt.datetime | None] = {("quiz", "q"): DUE, ("quiz", "r"): DUE}
    extended = {(1, "quiz", "q"): earlier.due_at, (1, "quiz", "r"): later.due_at}
    dates = Dates(DEFAULT, dues, extended)
    at = DUE - dt.timedelta(hours=1)
    assert not dates.judge(1, "quiz", "q", at).late
    assert dates.judge(1, "quiz", "r", DUE + dt.timedelta(hours=2)).late is False
    assert dates.due_for(1, "quiz", "q") == DUE
    assert dates.due_for(1, "quiz", "r") == DUE + dt.timedelta(days=1)
    assert dates.due_for(2, "quiz", "r") == DUE
