"""Content code (reference.py, cases.py, properties.py, declared mistakes) runs in the sandbox.

Issue 50, point 7: once editors write these files in a browser, they are not trusted. Each file
here tries to read the app's secret (environment and settings file), another course's hidden
tests, the database, and to open a network socket; each attempt must fail inside the sandbox,
the grader must still get its results, and the secret must appear in no result or report.
"""

from __future__ import annotations

import shutil
import socket
import sqlite3
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import yaml

from graders.engine import Grader
from graders.host.interpreter import PoolSettings
from graders.judging import mistake_runner
from graders.judging.spec import SpecError, load_spec

ROOT = Path(__file__).resolve().parents[2]
SLUG = "alibi-bias"
SECRET = "s3cret-key-of-the-app-0123456789abcdef"
SOLUTION = (ROOT / "exercises" / SLUG / "solutions" / "numpy.py").read_text(encoding="utf-8")


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP port on the host that nothing in a sandbox may reach."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    yield server.getsockname()[1]
    server.close()


@pytest.fixture
def host(tmp_path: Path, listener: int, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The secrets a hostile content file looks for, placed as a deployment has them."""
    monkeypatch.setenv("SECRET_KEY", SECRET)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/hostvar/app.db")
    (tmp_path / "hostvar").mkdir()
    settings = tmp_path / ".env"
    settings.write_text(f"SECRET_KEY={SECRET}\n")
    database = tmp_path / "hostvar" / "app.db"
    with sqlite3.connect(database) as db:
        db.execute("create table secrets (value text)")
        db.execute("insert into secrets values (?)", (SECRET,))
    other = tmp_path / "courses" / "other" / "exercises" / "hidden-one"
    other.mkdir(parents=True)
    (other / "cases.py").write_text(f"# hidden tests: {SECRET}\n")
    return {
        "settings": str(settings),
        "database": str(database),
        "other": str(other / "cases.py"),
        "repo_db": str(ROOT / "var" / "app.db"),
        "repo_course": str(ROOT / "exercises" / "rope-rotate" / "cases.py"),
        "port": str(listener),
    }


def probe(host: dict[str, str]) -> str:
    """Python that tries every way out and raises, naming what it got, if any worked."""
    return textwrap.dedent(
        f"""
        import os as _os
        import socket as _socket

        def _leaks():
            found = []
            def attempt(what, get):
                try:
                    value = get()
                except BaseException:
                    return
                if value:
                    found.append(f"{{what}}: {{str(value)[:80]}}")
            attempt("env SECRET_KEY", lambda: _os.environ.get("SECRET_KEY"))
            attempt("env DATABASE_URL", lambda: _os.environ.get("DATABASE_URL"))
            attempt("parent env", lambda: open("/proc/1/environ", "rb").read().count(b"SECRET"))
            for name in ("settings", "database", "other", "repo_db", "repo_course"):
                path = {host!r}[name]
                attempt(name, lambda path=path: open(path, "rb").read(200))
            def connect():
                conn = _socket.create_connection(("127.0.0.1", {host["port"]}), timeout=1)
                conn.close()
                return "connected"
            attempt("socket", connect)
            if found:
                raise RuntimeError("LEAKED " + "; ".join(found))

        _leaks()
        """
    )


@pytest.fixture
def hostile(tmp_path: Path, host: dict[str, str]) -> Path:
    """alibi-bias with a hostile probe at the top of every content file, one property, one
    NumPy mistake; each file still does its job when the probe finds nothing."""
    folder = tmp_path / "course" / "exercises" / SLUG
    shutil.copytree(ROOT / "exercises" / SLUG, folder)
    head = probe(host)
    for name in ("reference.py", "cases.py"):
        path = folder / name
        body = path.read_text(encoding="utf-8").replace("from __future__ import annotations", "")
        path.write_text(head + body)
    cases = folder / "cases.py"
    cases.write_text(
        cases.read_text(encoding="utf-8").replace(
            '_case("eight heads", False, 8, 6),',
            '{**_case("eight heads", False, 8, 6), "property": "causal"},',
        )
    )
    (folder / "properties.py").write_text(
        head + "\n\ndef causal(inputs, output):\n    return 'Your bias is not causal.'\n"
    )
    wrong = SOLUTION.replace("np.arange(1, num_heads + 1)", "np.arange(num_heads)")
    assert wrong != SOLUTION
    mistakes = {
        "mistakes": [
            {
                "id": "slopes-start-at-one",
                "title": "First head got slope 1",
                "hint": "Count heads from 1.",
                "framework": "numpy",
                "code": head + wrong,
            }
        ]
    }
    (folder / "mistakes.yaml").write_text(yaml.safe_dump(mistakes, sort_keys=False))
    return folder


def test_cases_and_reference_run_where_no_secret_is_visible(hostile: Path) -> None:
    spec = load_spec(hostile)  # cases.py ran: a leak would raise here
    assert len(spec.cases) == 9 + 5
    assert all(isinstance(v, np.ndarray) for v in spec.expected().values())
    assert spec.cases[1].property == "causal"


def test_declared_mistakes_run_where_no_secret_is_visible(hostile: Path) -> None:
    spec = load_spec(hostile)
    outputs = mistake_runner.compute(spec)
    frames = outputs["slopes-start-at-one"]
    assert frames, "the mistake produced no outputs"
    leaked = [v for v in frames.values() if not isinstance(v, np.ndarray)]
    assert not leaked, leaked


def test_a_graded_submission_reports_no_secret(hostile: Path, tmp_path: Path) -> None:
    grader = Grader(hostile.parent, PoolSettings(sizes={"numpy": 1}), mistakes_cache_dir=None)
    grader.start()
    try:
        wrong = SOLUTION.replace("np.arange(1, num_heads + 1)", "np.arange(num_heads)")
        report = grader.grade(exercise=SLUG, code=wrong, framework="numpy")
    finally:
        grader.stop()
    assert report.verdict == "wrong_answer", report.message
    text = str(report.to_dict())
    assert SECRET not in text and "LEAKED" not in text
    by_name = {t.name: t for t in report.tests}
    assert by_name["eight heads"].message.startswith("Your bias is not causal."), by_name
    assert by_name["eight heads"].misconception is not None


def test_a_content_file_that_raises_is_a_clear_problem(hostile: Path) -> None:
    path = hostile / "cases.py"
    path.write_text("raise RuntimeError('broken on purpose')\n" + path.read_text())
    with pytest.raises(SpecError, match=r"cases\.py.*broken on purpose"):
        load_spec(hostile)


def test_content_sees_only_its_own_folder(hostile: Path, host: dict[str, str]) -> None:
    """What the sandbox does see: the exercise's files, read-only."""
    path = hostile / "reference.py"
    path.write_text(
        path.read_text()
        + textwrap.dedent(
            """
            import os as _os
            assert _os.path.isfile("/exercise/cases.py")
            try:
                open("/exercise/planted.py", "w")
            except OSError:
                pass
            else:
                raise RuntimeError("the exercise folder is writable")
            """
        )
    )
    spec = load_spec(hostile)
    assert spec.expected()
    assert not (hostile / "planted.py").exists()


def test_the_jax_cache_filler_runs_the_model_solution_where_no_secret_is_visible(
    hostile: Path, host: dict[str, str], tmp_path: Path
) -> None:
    """The filler runs solutions/jax.py (and JAX mistakes) on zeros; it may write its own part
    of the cache only."""
    from graders.host.jax_cache import fill
    from graders.sandbox import base_env

    solution = hostile / "solutions" / "jax.py"
    solution.write_text(
        probe(host) + solution.read_text().replace("from __future__ import annotations", "")
    )
    other_part = tmp_path / "jax-cache" / "another-exercise"
    other_part.mkdir(parents=True)
    (other_part / "program").write_text("compiled")
    fill(hostile.parent, tmp_path / "jax-cache", base_env())  # a leak raises, naming it
    own = tmp_path / "jax-cache" / SLUG
    assert (own / ".filled").is_file()
    assert any(p.name.endswith("-cache") for p in own.iterdir())
    assert (other_part / "program").read_text() == "compiled"
