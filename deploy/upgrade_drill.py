"""The upgrade drill: a populated database made by an earlier commit's images, migrated by ours.

    python3 deploy/upgrade_drill.py REF      (`make compose-check UPGRADE_FROM=REF` runs it)

REF's code is built with today's Dockerfile (the earlier Dockerfiles need an image registry)
into `posembed-course:previous`. The compose project `coursecheck` starts on it with fresh data
volumes, students sign up, submit and take a quiz; then `up` with today's image runs today's
migrations; the counts must be equal, the old session must still work and a new submission must
be graded. Everything stops at the end.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compose_check as cc
from checklib import ROOT, Miss, Steps, Student, run

PREVIOUS = "posembed-course:previous"
VERSION_SQL = "SELECT version_num FROM alembic_version"


def build_previous(ref: str) -> str:
    """Build REF's code with today's Dockerfile and build inputs; return the commit built."""
    commit = run(["git", "rev-parse", "--short", ref]).stdout.decode().strip()
    with tempfile.TemporaryDirectory(prefix="upgrade-drill-") as tmp:
        context = Path(tmp) / "src"
        archive = subprocess.run(["git", "archive", commit], capture_output=True, check=True)
        context.mkdir()
        run(["tar", "-x", "-C", str(context)], input=archive.stdout)
        shutil.copy(ROOT / "Dockerfile", context / "Dockerfile")
        shutil.copy(ROOT / ".dockerignore", context / ".dockerignore")
        shutil.copytree(
            ROOT / "deploy" / "wheels",
            context / "deploy" / "wheels",
            dirs_exist_ok=True,
            copy_function=os.link,
        )
        ca = "/etc/ssl/certs/ca-certificates.crt"
        secret = ["--secret", f"id=ca_bundle,src={ca}"] if Path(ca).is_file() else []
        run(
            [
                "nice",
                "-n",
                "10",
                cc.DOCKER,
                "build",
                "-q",
                "-t",
                PREVIOUS,
                *secret,
                "--build-arg",
                f"PYTHON_IMAGE={os.environ['PYTHON_IMAGE']}",
                "--build-arg",
                f"NODE_IMAGE={os.environ['NODE_IMAGE']}",
                str(context),
            ],
            timeout=1800,
        )
    return commit


def main() -> int:
    ref = sys.argv[1]
    os.chdir(ROOT)
    cc.load_environment(int(os.environ.get("CHECK_PORT", "18080")))
    os.environ["DOCKER_BUILDKIT"] = "1"
    today = os.environ["APP_IMAGE"]
    base = f"http://127.0.0.1:{os.environ['WEB_PORT']}"
    steps = Steps()
    try:
        with steps.step(f"upgrade drill: build {ref} with today's Dockerfile") as notes:
            notes.append(f"{build_previous(ref)} as {PREVIOUS}")
        student = Student(base, f"old-{uuid.uuid4().hex[:8]}@example.org")
        with steps.step("upgrade drill: the earlier images, populated") as notes:
            cc.fresh_start()
            os.environ["APP_IMAGE"] = PREVIOUS
            notes.append(cc.up_and_healthy(1))
            student.signup()
            right, wrong = cc.answers(cc.GATHER, "numpy")
            ids = [student.submit(cc.GATHER, "numpy", code) for code in (wrong, right)]
            verdicts = [student.verdict(i, 600).get("verdict") for i in ids]
            if verdicts != ["wrong_answer", "accepted"]:
                raise Miss(f"verdicts {verdicts}")
            quiz = student.post_json(
                "/api/lessons/why-position/quiz", {"answers": cc.quiz_answers("01-why-position")}
            )
            if quiz.status != 200:
                raise Miss(f"quiz answered {quiz.status}")
            before = cc.db_counts(cc.containers("db")[0])
            was = cc.psql(cc.containers("db")[0], VERSION_SQL)
            notes.append(f"{before}; schema {was}")
        with steps.step("upgrade drill: today's images migrate it") as notes:
            os.environ["APP_IMAGE"] = today
            started = time.monotonic()
            cc.up_and_healthy(1)
            after = cc.db_counts(cc.containers("db")[0])
            now = cc.psql(cc.containers("db")[0], VERSION_SQL)
            old = student.request("GET", f"/api/submissions/{ids[1]}")
            new_id = student.submit(cc.GATHER, "numpy", right)
            verdict = student.verdict(new_id, 600).get("verdict")
            if after != before or old.status != 200 or verdict != "accepted":
                raise Miss(f"after: {after}; old submission {old.status}; new one {verdict}")
            notes.append(
                f"schema {was} -> {now}; same counts; old session and submissions readable; "
                f"a new submission accepted; up in {time.monotonic() - started:.0f} s"
            )
    except Miss as exc:
        steps.misses.append(str(exc))
        print(f"compose-check: MISS {exc}", flush=True)
    finally:
        cc.compose("down", "--remove-orphans", check=False, timeout=300)
    return steps.summary("compose-check: upgrade drill")


if __name__ == "__main__":
    sys.exit(main())
