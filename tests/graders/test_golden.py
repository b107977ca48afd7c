"""Golden tests: the real grader (warm pool, bubblewrap sandbox) on saved submissions.

Every `golden/<exercise>/<category>-<name>.<framework>.py` is graded as the web app grades it, and
the report, reduced to its stable fields, must equal the saved
`<category>-<name>.<framework>.expected.json` beside it. Categories: `correct` (styles of a right
solution), `mistake` (each declared misconception) and the hostile ones: `res` (resources),
`leak` (escape and leak probes), `tamper`, `crash` and `input` (bad input).

A hostile file's first line says what it attacks and, after `->`, the verdict it must get (`a|b`
when either is right); that claim is checked as well as the snapshot, so a careless
`GOLDEN_UPDATE=1` cannot bless a wrong verdict. After each hostile file a known-good submission
must still be accepted: the grader is alive and the next job is unaffected. Files in KNOWN_BUGS
are graders bugs found by this suite: their snapshot records today's answer and the claim check
is an expected failure until the bug is fixed.

A golden folder is named after its exercise's slug, wherever the exercise lives: the first course
(the repository's `exercises/`) or another course folder (`courses/<course>/exercises/`); each
course's exercises are graded by a grader of their own, as the platform would.

`GOLDEN_UPDATE=1 pytest tests/graders/test_golden.py` rewrites the json files from the grader's
answers; review every diff before keeping it. See golden/README.md.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import re
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from graders.engine import Grader
from graders.host.interpreter import PoolSettings
from graders.report import Report

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = ROOT / "exercises"
COURSES = ROOT / "courses"  # further course folders, each with its own exercises/
# The known mistakes' outputs `make prepare` computes, keyed by each exercise's files and library
# versions: the web app's graders use them too (app.grading.service.mistakes_cache_dir).
MISTAKES_CACHE = ROOT / "var" / "mistakes-cache"
GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("GOLDEN_UPDATE") == "1"
HOSTILE = ("res", "leak", "tamper", "crash", "input")
CATEGORIES = ("correct", "mistake", *HOSTILE)
FRAMEWORKS = ("numpy", "torch", "jax")
VERDICTS = frozenset(
    {
        "accepted",
        "wrong_answer",
        "runtime_error",
        "time_limit_exceeded",
        "memory_limit_exceeded",
        "output_limit_exceeded",
        "syntax_error",
        "invalid_submission",
    }
)
POOL = PoolSettings(
    sizes={"numpy": 2, "torch": 1, "jax": 0}, jax_cache_dir=str(ROOT / "var" / "jax-cache")
)
# Other courses have few golden files: a smaller pool each keeps the machine's cores for the first.
COURSE_POOL = PoolSettings(
    sizes={"numpy": 1, "torch": 1, "jax": 0}, jax_cache_dir=str(ROOT / "var" / "jax-cache")
)
KNOWN_GOOD = (EXERCISES / "position-embedding-gather" / "solutions" / "numpy.py").read_text()
# What a leak probe would find if the host's environment reached a sandbox.
FAKE_SECRETS = {
    "SECRET_KEY": "golden-secret-key",
    "DATABASE_URL": "postgresql://golden:golden-password@127.0.0.1:5432/golden",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "GOLDEN_API_TOKEN": "golden-token",
    "GOLDEN_PASSWORD": "golden-password",
}
APP_PORT = 8000  # a listener stands in for the web app when the port is free
HARNESS_MARK = b"/grader/harness.py"
LEFTOVER_WAIT_S = 5.0
REFILL_WAIT_S = 120.0
STARTING_KILL_WAIT_S = 2.0

# Grader bugs this suite found (golden file id -> what is wrong). The first line of each file
# states the right verdict; remove the entry once the grader gives it.
KNOWN_BUGS: dict[str, str] = {
    "lab-learned-vs-sinusoidal/tamper-patch-the-lab.torch": (
        "an experiment trains in the process that runs the student's code, so code that replaces "
        "the lab's own training and prediction functions is believed (docs/grading.md)"
    ),
}


def exercise_dirs() -> list[Path]:
    """The first course's exercises folder, then those of the course folders under courses/."""
    others = sorted(p / "exercises" for p in COURSES.glob("*") if (p / "exercises").is_dir())
    return [EXERCISES, *others]


def exercises_dir_of(slug: str) -> Path | None:
    """The exercises folder holding this slug (slugs are unique across courses), if any."""
    found = [d for d in exercise_dirs() if (d / slug / "exercise.yaml").is_file()]
    return found[0] if len(found) == 1 else None


def _framework(path: Path) -> str:
    return path.name.split(".")[-2]


def _category(path: Path) -> str:
    return path.name.split("-", 1)[0]


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.name.removesuffix('.py')}"


def _expected_path(path: Path) -> Path:
    return path.with_name(path.name.removesuffix(".py") + ".expected.json")


def _first_line(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0]


def _submissions() -> list[Path]:
    """Every saved submission; each framework's files spread evenly over the run, so the pool
    refills slow interpreters (JAX, torch) while cheap NumPy jobs are graded. Order within a
    folder is kept (leak-tmp-1-writer runs before leak-tmp-2-reader)."""
    paths = sorted(GOLDEN.glob("*/*.py"))
    groups: dict[str, list[Path]] = collections.defaultdict(list)
    for path in paths:
        groups[_framework(path)].append(path)
    keyed = [
        ((i + 0.5) / len(group), FRAMEWORKS.index(fw), path)
        for fw, group in groups.items()
        for i, path in enumerate(group)
    ]
    return [path for *_, path in sorted(keyed)]


SUBMISSIONS = _submissions()


# Golden files that wait out a long limit: they run with the end-to-end scenarios (`make
# test-scenarios`, which CI runs as well), so `make test` stays within its ten minutes.
WAIT_OUT_A_LIMIT = {
    # a training loop that never ends, stopped at the lab's own 45 s limit
    "lab-learned-vs-sinusoidal/res-train-forever.torch",
}


def _param(path: Path) -> Any:
    marks = [pytest.mark.scenario] if _id(path) in WAIT_OUT_A_LIMIT else []
    return pytest.param(path, id=_id(path), marks=marks)


def reduce(report: Report) -> dict[str, Any]:
    """The stable fields of a report: no messages, timings or previews (`line` when set)."""
    reduced: dict[str, Any] = {"verdict": report.verdict, "score": report.score}
    if report.line is not None:
        reduced["line"] = report.line
    reduced["tests"] = [
        {
            "name": test.name,
            "verdict": test.verdict,
            "misconception": test.misconception["id"] if test.misconception else None,
        }
        for test in report.tests
    ]
    return reduced


def claimed_verdicts(path: Path) -> set[str]:
    """The verdicts a hostile file's first line allows (`-> a` or `-> a|b`); empty if none."""
    match = re.search(r"-> ([a-z_|]+)", _first_line(path))
    names = set(match.group(1).split("|")) if match else set()
    assert names <= VERDICTS, f"{path.name}: unknown verdict in {names}"
    return names


def _descends_from(pid: int, ancestor: int) -> bool:
    """True when `pid` runs in a sandbox that `ancestor` launched itself: the chain reaches
    `ancestor` through a bwrap it forked (a server started by another test has its own)."""
    for _ in range(64):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == ancestor:
            with contextlib.suppress(OSError):
                return b"bwrap" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
            return False
        if parent <= 1:
            return False
        pid = parent
    return False


def own_sandbox_pids() -> list[int]:
    """Pids running the sandbox harness (bwrap and the interpreters) started by this process;
    other grader hosts on the machine are not ours to count."""
    me = os.getpid()
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if HARNESS_MARK in (entry / "cmdline").read_bytes() and _descends_from(
                int(entry.name), me
            ):
                pids.append(int(entry.name))
    return pids


@pytest.fixture(scope="module")
def app_listener() -> Iterator[None]:
    """Best effort: something listens on the app's port, so the network probe has a target."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    with contextlib.suppress(OSError):  # taken: then something listens there already
        server.bind(("127.0.0.1", APP_PORT))
        server.listen()
    yield
    server.close()


@pytest.fixture(scope="module")
def grader(app_listener: None) -> Iterator[Grader]:
    """One warm grader for the whole module, started with fake secrets in its environment."""
    with pytest.MonkeyPatch.context() as patch:
        for key, value in FAKE_SECRETS.items():
            patch.setenv(key, value)
        instance = Grader(EXERCISES, POOL, mistakes_cache_dir=MISTAKES_CACHE)
        instance.start()
        yield instance
        instance.stop()


@pytest.fixture(scope="module")
def course_graders(app_listener: None) -> Iterator[dict[Path, Grader]]:
    """One warm grader per other course's exercises folder, started on first use with the same
    fake secrets as the first course's; stopped at the end (or by the leftover test)."""
    started: dict[Path, Grader] = {}
    with pytest.MonkeyPatch.context() as patch:
        for key, value in FAKE_SECRETS.items():
            patch.setenv(key, value)
        yield started
        for instance in started.values():
            instance.stop()


def grader_for(slug: str, grader: Grader, course_graders: dict[Path, Grader]) -> Grader:
    """The grader of the course that holds this exercise."""
    folder = exercises_dir_of(slug)
    assert folder is not None, f"no single course holds the exercise {slug}"
    if folder == EXERCISES:
        return grader
    if folder not in course_graders:  # the fixture keeps the fake secrets in the environment
        course_graders[folder] = Grader(folder, COURSE_POOL, mistakes_cache_dir=MISTAKES_CACHE)
        course_graders[folder].start()
    return course_graders[folder]


@pytest.mark.parametrize("path", [_param(p) for p in SUBMISSIONS])
def test_golden_submission(grader: Grader, course_graders: dict[Path, Grader], path: Path) -> None:
    framework, category = _framework(path), _category(path)
    known_good = grader  # the first course's gather exercise, graded after each hostile file
    grader = grader_for(path.parent.name, grader, course_graders)
    assert category in CATEGORIES, f"unknown category in {path.name}"
    code = path.read_bytes().decode("utf-8")
    report = grader.grade(exercise=path.parent.name, code=code, framework=framework)
    got = reduce(report)
    expected_file = _expected_path(path)
    if UPDATE:
        expected_file.write_text(json.dumps(got, indent=2) + "\n", encoding="utf-8")
    assert expected_file.is_file(), f"no {expected_file.name}: run with GOLDEN_UPDATE=1"
    assert got == json.loads(expected_file.read_text(encoding="utf-8")), report.message

    # Rules that hold whatever the snapshot says.
    assert report.verdict in VERDICTS, report.message
    if category == "correct":
        assert report.verdict == "accepted", report.message
    elif category == "mistake":
        _check_mistake(grader, path, report)
    else:
        _check_hostile(grader, path, report, known_good)


def _check_mistake(grader: Grader, path: Path, report: Report) -> None:
    """A declared misconception is rejected and, in function exercises, named where it shows."""
    mistake_id = path.name.split(".")[0].removeprefix("mistake-")
    spec = grader.spec(path.parent.name)
    assert mistake_id in {m.id for m in spec.mistakes}, f"{mistake_id} is not declared"
    assert report.verdict == "wrong_answer", report.message
    wrong = [t for t in report.tests if t.verdict == "wrong_answer"]
    assert wrong, report.message
    if spec.entry_kind != "function":
        return  # class exercises judge without misconception matching
    named = collections.Counter(t.misconception["id"] if t.misconception else None for t in wrong)
    assert None not in named, [t.message for t in wrong]
    # Where two mistakes give the same output on a test, the first declared one is named.
    assert named.most_common(1)[0][0] == mistake_id, named


def _check_hostile(grader: Grader, path: Path, report: Report, known_good: Grader) -> None:
    """The verdict the file's first line claims (a known bug is an expected failure), then the
    grader must still accept a known-good submission."""
    claimed = claimed_verdicts(path)
    first = _first_line(path)
    assert claimed or "never accepted" in first, f"{path.name}: its first line names no verdict"
    right = report.verdict in claimed if claimed else report.verdict != "accepted"
    if report.verdict == "syntax_error" and "NUL" not in first:
        assert report.line is not None, "a syntax error must point at its line"
    after = known_good.grade(exercise="position-embedding-gather", code=KNOWN_GOOD)
    assert after.verdict == "accepted", f"the next job was affected: {after.message}"
    bug = KNOWN_BUGS.get(_id(path))
    if bug is None:
        assert right, f"{path.name}: got {report.verdict}, claimed {claimed}: {report.message}"
    elif right:
        pytest.fail(f"{_id(path)} now gets a right verdict: remove it from KNOWN_BUGS")
    else:
        pytest.xfail(f"grader bug: {bug}")


def test_golden_files_are_complete() -> None:
    """Each submission has its expected report and each report its submission; enough hostiles."""
    reports = {
        p.with_name(p.name.removesuffix(".expected.json") + ".py") for p in GOLDEN.glob("*/*.json")
    }
    assert reports == set(SUBMISSIONS)
    for path in SUBMISSIONS:
        assert exercises_dir_of(path.parent.name) is not None, path
        assert _framework(path) in FRAMEWORKS, path
        assert _category(path) in CATEGORIES, path
    assert set(KNOWN_BUGS) | WAIT_OUT_A_LIMIT <= {_id(p) for p in SUBMISSIONS}
    assert sum(_category(p) in HOSTILE for p in SUBMISSIONS) >= 40


def _wait_until(condition: Callable[[], bool], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_golden_folders_cover_every_course() -> None:
    """Every exercise of every course folder has golden files, so each is held to this suite."""
    for folder in exercise_dirs()[1:]:
        slugs = {p.parent.name for p in folder.glob("*/exercise.yaml")}
        assert slugs, f"{folder} holds no exercise"
        missing = sorted(slug for slug in slugs if not any((GOLDEN / slug).glob("correct-*.py")))
        assert not missing, f"no golden submissions for {missing}"


def test_exercise_slugs_are_unique_across_courses() -> None:
    """Golden folders are named by slug alone: no two courses may share one."""
    seen: dict[str, Path] = {}
    for folder in exercise_dirs():
        for meta in sorted(folder.glob("*/exercise.yaml")):
            slug = meta.parent.name
            assert slug not in seen, f"{slug} is in {seen.get(slug)} and {folder}"
            seen[slug] = folder


def test_no_sandbox_process_survives_stop(
    grader: Grader, course_graders: dict[Path, Grader]
) -> None:
    """After stop() on a full pool, no harness process started by this test run is left."""
    for instance in course_graders.values():
        instance.stop()  # the other courses' graders are done: only the first course's is counted

    def full() -> bool:
        sizes = grader.pool.settings.sizes  # JAX: one entry per exercise
        return all(grader.pool.sizes().get(key, 0) >= n for key, n in sizes.items())

    assert _wait_until(full, REFILL_WAIT_S), f"the pool did not refill: {grader.pool.sizes()}"
    grader.stop()
    assert _wait_until(lambda: not own_sandbox_pids(), LEFTOVER_WAIT_S), (
        f"sandbox processes still alive after stop(): {own_sandbox_pids()}"
    )


def test_stop_kills_interpreters_still_starting() -> None:
    """A JAX interpreter takes seconds to warm up; stop() must not wait for it to be ready."""
    before = set(own_sandbox_pids())
    starting = Grader(EXERCISES, PoolSettings(sizes={"jax": 1}))
    starting.start()
    try:
        assert _wait_until(lambda: bool(set(own_sandbox_pids()) - before), 30), "nothing started"
        starting.stop()
        gone = _wait_until(lambda: not set(own_sandbox_pids()) - before, STARTING_KILL_WAIT_S)
        assert gone, f"still alive after stop(): {set(own_sandbox_pids()) - before}"
    finally:
        starting.stop()  # leave nothing behind for later tests, whatever happened above
        _wait_until(lambda: not set(own_sandbox_pids()) - before, REFILL_WAIT_S)
