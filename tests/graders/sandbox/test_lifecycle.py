"""Warm-pool life cycle: ready marker, job and result pipes, kill_tree, nothing survives a job."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from graders.sandbox import READY, ExitStatus, SandboxError, SandboxProcess
from tests.graders.sandbox.helpers import collect, requires_sandbox, root_only, run, start

pytestmark = requires_sandbox

ECHO = """
import sys
os.write(4, b"R")
job = b""
while chunk := os.read(3, 65536):
    job += chunk
out = job[::-1]
while out:
    out = out[os.write(4, out):]
"""


def test_ready_then_job_and_result_round_trip_bytes() -> None:
    assert READY == b"R"
    proc = start(ECHO)
    proc.wait_ready(20)
    assert proc.is_alive()
    job = bytes(range(256)) * 4096 + b"\0end"  # 1 MiB with NULs, larger than a pipe buffer
    result = collect(proc, job=job)
    assert result.status.exit_code == 0, result.text
    assert result.result == job[::-1]


def test_wait_ready_reports_an_early_exit() -> None:
    proc = start("import sys\nprint('broken import', flush=True)\nsys.exit(3)")
    with pytest.raises(SandboxError, match="broken import"):
        proc.wait_ready(20)
    assert proc.wait(5).exit_code == 3
    proc.close()


def test_wait_ready_times_out_and_kill_tree_ends_it() -> None:
    proc = start("import time\ntime.sleep(60)")
    with pytest.raises(TimeoutError):
        proc.wait_ready(0.5)
    proc.kill_tree()
    status = proc.wait(0)
    assert status.killed and status.signal == signal.SIGKILL
    assert not proc.is_alive()
    proc.close()


def _host_pids_with(marker: str) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline:
            pids.append(int(entry))
    return pids


def test_kill_tree_leaves_no_process_behind() -> None:
    marker = f"sandbox-marker-{uuid.uuid4().hex}"
    half = len(marker) // 2  # the snippet's own command line must not contain the marker
    code = f"""
import subprocess, sys, time
tag = {marker[:half]!r} + {marker[half:]!r}
sleeper = [sys.executable, "-c", "import time; time.sleep(300)", tag]
subprocess.Popen(sleeper)
subprocess.Popen(sleeper, start_new_session=True)
if os.fork() == 0:  # classic daemon: fork, setsid, fork again, the middle one exits
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, sleeper)
    os._exit(0)
time.sleep(0.5)
os.write(4, b"R")
time.sleep(300)
"""
    proc = start(code)
    proc.wait_ready(20)
    deadline = time.monotonic() + 10
    while len(_host_pids_with(marker)) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(_host_pids_with(marker)) == 3
    proc.kill_tree()
    assert _host_pids_with(marker) == []  # at once: kill_tree returns when all are gone
    assert not proc.is_alive()
    proc.close()


def test_tmp_does_not_survive_into_the_next_sandbox() -> None:
    name = f"leftover-{uuid.uuid4().hex}"
    # a checkout under /tmp shows up as the (read-only) mount point of its venv
    prefix = Path(sys.prefix)
    mounts = {prefix.parts[2]} if prefix.parts[:2] == ("/", "tmp") else set()
    first = run(f"open('/tmp/{name}', 'w').write('x')\nreport(os.listdir('/tmp'))")
    assert set(first.value) - mounts == {name}
    second = run("report(os.listdir('/tmp'))")
    assert set(second.value) - mounts == set()
    assert not Path("/tmp", name).exists()


def test_venv_and_root_are_read_only() -> None:
    # By real paths, as the sandbox binds them (a worktree's .venv is a symlink).
    site = os.path.realpath(next(p for p in sys.path if p.endswith("site-packages")))
    targets = [
        f"{site}/sitecustomize.py",
        f"{site}/evil.pth",
        f"{os.path.realpath(sys.prefix)}/pwned",
        "/pwned",
        "/usr/pwned",
        "/dev/shm/pwned",
        "/etc/pwned",
    ]
    code = f"""
out = {{}}
for path in {targets!r}:
    try:
        with open(path, "w") as f:
            f.write("import os")
        out[path] = "written"
    except OSError as exc:
        out[path] = exc.errno
report(out)
"""
    out = run(code).value
    assert isinstance(out, dict)
    assert all(v in (13, 30) for v in out.values()), out  # EACCES or EROFS
    assert not Path(site, "sitecustomize.py").exists()


def test_read_only_bind_of_a_harness_file(tmp_path: Path) -> None:
    harness = tmp_path / "harness.py"
    harness.write_text("VALUE = 42\n")
    code = """
import sys
sys.path.insert(0, "/grader")
import harness
try:
    open("/grader/harness.py", "a").write("x")
    report("writable")
except OSError as exc:
    report((harness.VALUE, exc.errno))
"""
    result = run(code, ro_binds=[(str(harness), "/grader/harness.py")])
    assert result.value in ((42, 13), (42, 30))  # EACCES (owned by root) or EROFS


def test_exit_code_and_crash_signal_are_reported() -> None:
    assert run("os._exit(7)").status.exit_code == 7
    crash = run("import ctypes\nctypes.string_at(0)")
    assert crash.status.signal == signal.SIGSEGV and crash.status.exit_code is None


def test_job_cannot_kill_its_own_interpreter_by_signal() -> None:
    code = """
import signal
os.kill(1, signal.SIGKILL)  # pid 1 is the interpreter itself: ignored
try:
    os.kill(-1, signal.SIGKILL)  # every process but pid 1: there is none
except ProcessLookupError:
    pass
report("alive")
"""
    assert run(code).value == "alive"


def test_sandbox_survives_the_thread_that_spawned_it() -> None:
    box: list[SandboxProcess] = []
    thread = threading.Thread(target=lambda: box.append(start("import time\ntime.sleep(30)")))
    thread.start()
    thread.join()
    time.sleep(0.3)  # PR_SET_PDEATHSIG would have fired by now if tied to that thread
    proc = box[0]
    assert proc.is_alive()
    proc.kill_tree()
    proc.close()


# Spawns a sandbox that would sleep for ten minutes, prints bwrap's pid, then waits to be killed.
LAUNCHER = """
import time
from tests.graders.sandbox.helpers import start
proc = start("import time\\nos.write(4, b'R')\\ntime.sleep(600)")
proc.wait_ready(60)
print(proc.pid, flush=True)
time.sleep(600)
"""


def test_sandbox_dies_with_the_process_that_launched_it() -> None:
    root = Path(__file__).resolve().parents[3]
    launcher = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER], stdout=subprocess.PIPE, cwd=root, text=True
    )
    assert launcher.stdout is not None
    bwrap = os.pidfd_open(int(launcher.stdout.readline()))
    try:
        launcher.kill()  # bwrap is its child (PR_SET_PDEATHSIG), though cloned by reparent.py
        launcher.wait()
        assert select.select([bwrap], [], [], 60)[0], "bwrap outlived its launcher"
    finally:
        os.close(bwrap)
        launcher.stdout.close()


@root_only
def test_uids_are_distinct_per_sandbox() -> None:
    procs = [start("import time\ntime.sleep(30)") for _ in range(3)]
    try:
        uids = {os.stat(f"/proc/{p.pid}").st_uid for p in procs}
        assert len(uids) == 3 and 0 not in uids
    finally:
        for proc in procs:
            proc.kill_tree()
            proc.close()


def test_usage_is_kept_when_the_caller_kills_the_tree() -> None:
    code = """
import time
end = time.process_time() + 0.4
while time.process_time() < end:
    pass
data = bytearray(64 * 2**20)
os.write(4, b"R")
time.sleep(60)
"""
    proc = start(code)
    proc.wait_ready(20)
    proc.kill_tree()
    usage = proc.resource_usage()
    assert usage.cpu_ms is not None and usage.cpu_ms >= 350
    assert usage.max_rss_mb is not None and usage.max_rss_mb >= 64
    proc.close()


def test_concurrent_spawns_from_many_threads() -> None:
    results: list[object] = []

    def one(index: int) -> None:
        results.append(run(f"report({index} * 2)").value)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [0, 2, 4, 6, 8, 10]  # type: ignore[type-var]


def test_kill_tree_when_the_sandbox_ends_at_that_very_moment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The sandbox's init found, then gone (bwrap reaped it and exited) before the SIGKILL:
    kill_tree still returns quietly. Unhandled, this killed the grader's health thread."""
    proc = start("import os\nos.write(4, b'R')\nimport time\ntime.sleep(0.3)")
    proc.wait_ready(20)
    found_init, reap = SandboxProcess._open_init, SandboxProcess._reap
    checks: list[int] = []

    def running_at_first(self: SandboxProcess) -> ExitStatus | None:
        checks.append(1)
        return None if len(checks) == 1 else reap(self)  # kill_tree's first look: still running

    def init_then_the_end(self: SandboxProcess) -> int | None:
        fd = found_init(self)
        assert fd is not None
        self.wait(20)  # init exits, bwrap reaps it and exits: the pidfd now names no process
        return fd

    monkeypatch.setattr(SandboxProcess, "_reap", running_at_first)
    monkeypatch.setattr(SandboxProcess, "_open_init", init_then_the_end)
    proc.kill_tree()
    monkeypatch.undo()
    assert proc.wait(0).exit_code == 0
    proc.close()
