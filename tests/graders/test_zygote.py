"""graders/inside/zygote.py outside the sandbox: a sandbox's session priority (autogroup)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pyrun import last_json

INSIDE = Path(__file__).resolve().parents[2] / "graders" / "inside"
SESSIONS = """
import ctypes, os, sys, time
sys.path.insert(0, sys.argv[1])
import zygote

go = time.monotonic() + 0.5
readers = []
for n in range(4):
    r, w = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.getuid() == 0:  # root may change sessions at any rate: test what users meet
            os.setgid(65534)
            os.setuid(65534)
            ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE: own /proc/self again
        time.sleep(max(0.0, go - time.monotonic()))  # all four at the same moment
        ok = zygote.set_session_nice(10 + n)
        then = open("/proc/self/autogroup").read().split()[-1]
        lowered = zygote.set_session_nice(0)
        now = open("/proc/self/autogroup").read().split()[-1]
        os.write(w, f"{ok} {then} {lowered} {now}".encode())
        os._exit(0)
    os.close(w)
    readers.append(r)
for r in readers:
    print(os.read(r, 100).decode())
    os.wait()
"""


def test_sessions_that_start_together_all_get_their_priority_and_can_lower_it_again() -> None:
    # Linux takes one session change per 100 ms from unprivileged processes and refuses the
    # rest (EAGAIN); the refusal was lost before, and a JAX warm-up ran at nice 0.
    if not Path("/proc/self/autogroup").exists():
        pytest.skip("this kernel does not group sessions (no autogroup): nothing to set")
    proc = subprocess.run(
        [sys.executable, "-c", SESSIONS, str(INSIDE)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    rows = sorted(proc.stdout.split("\n")[:4])
    assert rows == [f"True {10 + n} True 0" for n in range(4)], proc.stdout


SAME_AGAIN = """
import ctypes, json, os, sys
sys.path.insert(0, sys.argv[1])
import zygote

os.setsid()
if os.getuid() == 0:  # root may change sessions at any rate: test what users meet
    os.setgid(65534)
    os.setuid(65534)
    ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE: own /proc/self again
first = zygote.set_session_nice(10)
zygote.SESSION_NICE_RETRY_S = 0.0  # a write now would be refused: no other session waits
again = zygote.set_session_nice(10)
print(json.dumps([first, again, open("/proc/self/autogroup").read().split()[-1]]))
"""


def test_a_session_already_at_its_priority_is_not_changed_again() -> None:
    # A NumPy server's start and its serving priority were both 10, set within a millisecond:
    # the second write waited out Linux's limit of one change per 100 ms (a third of its start).
    if not Path("/proc/self/autogroup").exists():
        pytest.skip("this kernel does not group sessions (no autogroup): nothing to set")
    found = last_json(SAME_AGAIN, env=dict(os.environ), cwd=INSIDE, args=(str(INSIDE),))
    assert found == [True, True, "10"], found


# One change per entry of graders/inside/inherited.py, each made by a process on itself.
CHANGES = {
    "rlimits": "import resource; resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))",
    "nice": "os.nice(1)",
    "policy": "os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))",
    "sched_attr": (
        "import ctypes, struct; libc = ctypes.CDLL(None)\n"
        "buf = ctypes.create_string_buffer(64); libc.syscall(315, 0, buf, 64, 0)\n"
        "raw = bytearray(buf.raw); raw[24:32] = struct.pack('Q', 300_000)\n"
        "new = ctypes.create_string_buffer(bytes(raw)); assert libc.syscall(314, 0, new, 0) == 0"
    ),
    "affinity": "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})",
    "ioprio": "import ctypes; assert ctypes.CDLL(None).syscall(251, 1, 0, 3 << 13) == 0",
    "umask": "os.umask(0o077)",
    "cwd": "os.chdir('/')",
    "timerslack": "import ctypes; ctypes.CDLL(None).prctl(29, 123457, 0, 0, 0)",
    "dumpable": "import ctypes; ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)",
    "no_new_privs": "import ctypes; ctypes.CDLL(None).prctl(38, 1, 0, 0, 0)",
    "personality": "import ctypes; ctypes.CDLL(None).personality(0x0040000)",
    "oom_score_adj": "open('/proc/self/oom_score_adj', 'w').write('500')",
    # An unprivileged write is refused (EAGAIN, seen only when the file closes) within 100 ms of
    # any other on the machine: try until it takes, as a job would.
    "autogroup": (
        "for _ in range(60):\n"
        "    try:\n"
        "        with open('/proc/self/autogroup', 'w') as f:\n"
        "            f.write('7')\n"
        "        break\n"
        "    except OSError:\n"
        "        time.sleep(0.05)\n"
    ),
    "threads": "import threading; threading.Thread(target=time.sleep, args=(5,)).start()",
}
CHECK = """
import os, sys, time
sys.path.insert(0, sys.argv[1])
import inherited
os.chdir('/tmp')
os.setsid()  # a session (autogroup) of its own
before = inherited.snapshot()
assert not inherited.changed(before), inherited.changed(before)
exec(sys.argv[2])
print(' '.join(inherited.changed(before)), flush=True)  # os._exit does not flush
os._exit(0)
"""


def test_every_entry_of_the_after_job_check_has_a_change_here() -> None:
    sys.path.insert(0, str(INSIDE))
    try:
        import inherited  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(INSIDE))
    assert set(CHANGES) | {"priority"} == set(inherited.ENTRIES)  # priority: test below


@pytest.mark.parametrize("entry", sorted(CHANGES))
def test_the_after_job_check_sees_each_change_a_job_could_make(entry: str) -> None:
    if entry == "affinity" and len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: no other affinity to set")
    proc = subprocess.run(
        [sys.executable, "-c", CHECK, str(INSIDE), CHANGES[entry]],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert entry in proc.stdout.split(), proc.stdout


def test_a_cleaner_past_its_budget_is_replaced_by_one_that_goes_on(tmp_path: Path) -> None:
    # 6,000 files take more than one slice: each late cleaner is killed and the next one
    # goes on where it stopped, so /tmp ends empty without the server giving up (issue 48).
    sys.path.insert(0, str(INSIDE))
    try:
        import cleaner  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(INSIDE))
    (tmp_path / "d").mkdir()
    for n in range(6_000):
        (tmp_path / ("d" if n % 2 else "") / f"{n}{'z' * 100}").touch()
    (tmp_path / "d").chmod(0)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cleaner, "SANDBOX_TMP", str(tmp_path))
        kept: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
        assert not cleaner.empty_tmp(kept, budget_s=0.01, cleaners=1)  # one slice: not enough
        assert any(tmp_path.iterdir())
        # slices long enough to get past a fork on a busy machine (each makes some progress)
        assert cleaner.empty_tmp(kept, budget_s=0.05, cleaners=1000)
    assert not any(tmp_path.iterdir())


def test_the_after_job_check_sees_a_real_time_priority() -> None:
    # A real-time priority needs CAP_SYS_NICE or RLIMIT_RTPRIO: root has it, an ordinary user
    # (RLIMIT_RTPRIO 0) cannot set one in the first place, so there is nothing to see.
    change = "os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))"
    proc = subprocess.run(
        [sys.executable, "-c", CHECK, str(INSIDE), change],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if "PermissionError" in proc.stderr:
        pytest.skip("this user may not set a real-time priority, so no job can either")
    assert proc.returncode == 0, proc.stderr
    assert "priority" in proc.stdout.split(), proc.stdout


def test_a_cleaner_removes_folders_nested_past_the_recursion_and_path_limits(
    tmp_path: Path,
) -> None:
    # 3,000 nested folders (a path of 6,000 bytes, past PATH_MAX), each made unreadable: a
    # recursive remover raised RecursionError and the whole server was replaced.
    sys.path.insert(0, str(INSIDE))
    try:
        import cleaner
    finally:
        sys.path.remove(str(INSIDE))
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        for _ in range(3_000):
            os.mkdir("d")
            os.chdir("d")
            Path("f").touch()
        for _ in range(3_000):
            os.chdir("..")
            os.chmod("d", 0)
    finally:
        os.chdir(here)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(cleaner, "SANDBOX_TMP", str(tmp_path))
            assert cleaner.empty_tmp((frozenset(), frozenset()), budget_s=30.0, cleaners=1)
        assert not any(tmp_path.iterdir())
    finally:  # pytest's own clean-up of tmp_path is recursive: never leave the tree to it
        subprocess.run(["chmod", "-R", "u+rwx", str(tmp_path)], check=False)
        subprocess.run(["rm", "-rf", str(tmp_path / "d")], check=False)
