"""Fork servers (graders/inside/zygote.py, graders/host/forkserver.py): one job must not see the
one before.

Each test plants something with one job and probes for it with the next, in one fork server
(pool size 1), through the real Grader and bubblewrap. A probe returns the right answer only
when it finds nothing, so "accepted" means nothing crossed from job to job.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graders.engine import Grader
from graders.host.forkserver import ForkServer
from graders.host.interpreter import PoolSettings, start_interpreter
from graders.host.pool import WarmPool
from tests.graders.sandbox.helpers import requires_sandbox

pytestmark = requires_sandbox

ROOT = Path(__file__).resolve().parents[2]
EXERCISE = "position-embedding-gather"
GOOD = (ROOT / "exercises" / EXERCISE / "solutions" / "numpy.py").read_text()
ANSWER = "    return np.asarray(embedding_table)[np.asarray(positions).astype(np.int64)]\n"


def _solution(prelude: str, check: str = "False") -> str:
    """A right answer that first runs `prelude`, and returns zeros when `check` is true."""
    return (
        "import os, signal, sys, time\nimport numpy as np\n"
        f"{prelude}\n"
        "def position_embedding_gather(positions, embedding_table):\n"
        "    answer = np.asarray(embedding_table)[np.asarray(positions).astype(np.int64)]\n"
        f"    return np.zeros_like(answer) if ({check}) else answer\n"
    )


@pytest.fixture(scope="module")
def grader() -> Iterator[Grader]:
    settings = PoolSettings(sizes={"numpy": 1}, jax_warm_up=False, fork_max_jobs=1000)
    grader = Grader(ROOT / "exercises", settings)
    grader.start()
    try:
        yield grader
    finally:
        grader.stop()


def _grade(grader: Grader, code: str, mode: str = "submit") -> str:
    report = grader.grade(exercise=EXERCISE, code=code, framework="numpy", mode=mode)  # type: ignore[arg-type]
    return report.verdict


def _server(grader: Grader) -> ForkServer:
    """The idle fork server (waits for it after a replacement)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready = list(grader.pool._ready.get("numpy", collections.deque()))
        if ready and isinstance(ready[0], ForkServer):
            return ready[0]
        time.sleep(0.05)
    raise AssertionError("no idle numpy fork server")


def test_one_server_takes_job_after_job(grader: Grader) -> None:
    server = _server(grader)
    before = server.jobs
    for _ in range(3):
        assert _grade(grader, GOOD) == "accepted"
    assert _server(grader) is server
    assert server.jobs == before + 3


def test_files_left_in_tmp_are_gone_for_the_next_job(grader: Grader) -> None:
    plant = _solution(
        "os.makedirs('/tmp/deep/er', exist_ok=True)\n"
        "open('/tmp/planted', 'w').write('x')\n"
        "open('/tmp/deep/er/f', 'w').write('x')\n"
        "os.chmod('/tmp/deep/er', 0)\nos.chmod('/tmp/deep', 0)\n"
        # a checkout under /tmp (as in CI) is bound there: plant beside it too
        "for name in os.listdir('/tmp'):\n"
        "    try:\n        open(f'/tmp/{name}/planted', 'w').close()\n"
        "    except OSError:\n        pass\n"
    )
    server = _server(grader)
    assert _grade(grader, plant) == "accepted"
    assert _server(grader) is server  # it cleaned up, so it stays
    probe = (
        "any(os.path.lexists(p) for p in ('/tmp/planted', '/tmp/deep', 'planted'))"
        " or any(os.path.lexists(f'/tmp/{n}/planted') for n in os.listdir('/tmp'))"
    )
    assert _grade(grader, _solution("", probe)) == "accepted"


def test_a_job_cannot_leave_a_process_behind(grader: Grader) -> None:
    # The job filter refuses fork; were it to fail, the server would still kill what is left.
    plant = _solution(
        "try:\n"
        "    if os.fork() == 0:\n"
        "        os.setsid()\n"
        "        if os.fork() == 0:\n"
        "            signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "            time.sleep(60)\n"
        "        os._exit(0)\n"
        "    FORKED = True\n"
        "except PermissionError:\n"
        "    FORKED = False\n",
        "FORKED",
    )
    assert _grade(grader, plant) == "accepted"
    # Only the fork server (pid 1) and the probe itself may exist.
    probe = (
        "sorted(p for p in os.listdir('/proc') if p.isdigit()) != sorted(['1', str(os.getpid())])"
    )
    assert _grade(grader, _solution("", probe)) == "accepted"


def test_the_server_cannot_be_read_written_or_signalled(grader: Grader) -> None:
    attack = (
        "for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL,"
        " signal.SIGSTOP):\n"
        "    try:\n        os.kill(1, sig)\n    except OSError:\n        pass\n"
        "def _opened(path, mode):\n"
        "    try:\n        open(path, mode).close()\n        return True\n"
        "    except OSError:\n        return False\n"
        "LEAK = any(_opened(p, m) for p, m in (('/proc/1/mem', 'rb'), ('/proc/1/mem', 'r+b'),"
        " ('/proc/1/environ', 'rb')))\n"
        "try:\n    LEAK = LEAK or bool(os.listdir('/proc/1/fd'))\nexcept OSError:\n    pass\n"
    )
    server = _server(grader)
    assert _grade(grader, _solution(attack, "LEAK")) == "accepted"
    assert _server(grader) is server
    assert _grade(grader, GOOD) == "accepted"


def test_ipc_objects_cannot_be_created(grader: Grader) -> None:
    probe = (
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "MADE = libc.shmget(0, 4096, 0o1666) >= 0 or libc.msgget(0, 0o1666) >= 0"
        " or libc.semget(0, 1, 0o1666) >= 0\n"
    )
    assert _grade(grader, _solution(probe, "MADE")) == "accepted"


def test_a_job_sees_none_of_the_servers_descriptors(grader: Grader) -> None:
    # 0 /dev/null, 1 and 2 output, 4 result (the job pipe, 3, is closed once read; listdir's
    # own descriptor takes its number); anything more came from the server.
    probe = (
        "sorted(int(f) for f in os.listdir('/proc/self/fd')) not in ([0, 1, 2, 4], [0, 1, 2, 3, 4])"
    )
    assert _grade(grader, _solution("", probe)) == "accepted"


def test_a_timeout_is_stopped_by_the_server_which_then_takes_the_next_job(grader: Grader) -> None:
    server = _server(grader)
    report = grader.grade(
        exercise=EXERCISE, code=_solution("", "time.sleep(60)"), framework="numpy"
    )
    assert report.verdict == "time_limit_exceeded"
    assert "computed for only" in report.tests[0].message  # the server measured its child
    assert _server(grader) is server  # stopped and cleaned up like any other job
    assert _grade(grader, _solution("os.kill(os.getpid(), signal.SIGSEGV)")) == "runtime_error"
    assert _grade(grader, GOOD) == "accepted"


def test_output_belongs_to_its_own_job(grader: Grader) -> None:
    noisy = _solution("print('from the first job')")
    report = grader.grade(exercise=EXERCISE, code=noisy, framework="numpy", mode="run")
    assert "from the first job" in report.stdout
    quiet = grader.grade(exercise=EXERCISE, code=GOOD, framework="numpy", mode="run")
    assert "from the first job" not in quiet.stdout


def test_a_server_is_replaced_after_max_jobs() -> None:
    settings = PoolSettings(sizes={"numpy": 1}, jax_warm_up=False, fork_max_jobs=2)
    grader = Grader(ROOT / "exercises", settings)
    grader.start()
    try:
        first = _server(grader)
        assert _grade(grader, GOOD) == "accepted"
        assert _grade(grader, GOOD) == "accepted"
        assert _server(grader) is not first
        assert _grade(grader, GOOD) == "accepted"
    finally:
        grader.stop()


def test_a_job_cannot_change_what_the_next_child_inherits(grader: Grader) -> None:
    # Each change to the server (pid 1) is refused by the job filter; the after-job check that
    # would catch one anyway is tested change by change in tests/graders/test_zygote.py.
    attack = (
        "import ctypes, resource\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "CHANGES = {\n"
        "    'prlimit': lambda: resource.prlimit(1, resource.RLIMIT_DATA, (2**24, 2**24)),\n"
        "    'prlimit cpu': lambda: resource.prlimit(1, resource.RLIMIT_CPU, (1, 1)),\n"
        "    'nice': lambda: os.setpriority(os.PRIO_PROCESS, 1, 19),\n"
        "    'nice of the group': lambda: os.setpriority(os.PRIO_PGRP, 1, 19),\n"
        "    'nice of the user': lambda: os.setpriority(os.PRIO_USER, os.getuid(), 19),\n"
        "    'affinity': lambda: os.sched_setaffinity(1, {min(os.sched_getaffinity(0))}),\n"
        "    'policy': lambda: os.sched_setscheduler(1, os.SCHED_BATCH, os.sched_param(0)),\n"
        "    'policy idle': lambda: os.sched_setscheduler(1, os.SCHED_IDLE, os.sched_param(0)),\n"
        "    'param': lambda: os.sched_setparam(1, os.sched_param(0)),\n"
        "    'ioprio': lambda: libc.syscall(251, 1, 1, (3 << 13)) == 0 or 1 / 0,\n"
        "}\n"
        "DONE = []\n"
        "for name, change in CHANGES.items():\n"
        "    try:\n        change()\n        DONE.append(name)\n"
        "    except (OSError, ZeroDivisionError):\n        pass\n"
    )
    server = _server(grader)
    report = grader.grade(exercise=EXERCISE, code=_solution(attack, "DONE"), framework="numpy")
    assert report.verdict == "accepted", report.message
    assert _server(grader) is server  # nothing changed, so it stays
    # A job that needs more than 16 MB and a full second of CPU runs normally.
    heavy = _solution(
        "big = np.ones(8 * 2**20)\nend = time.process_time() + 1.2\n"
        "while time.process_time() < end:\n    pass\n"
        "NICE = os.getpriority(os.PRIO_PROCESS, 0)\n",
        "NICE != 0 or os.sched_getscheduler(0) != os.SCHED_OTHER",
    )
    assert _grade(grader, heavy) == "accepted"


def test_the_pool_says_filled_once_every_key_has_a_server() -> None:
    settings = PoolSettings(sizes={"numpy": 1, "torch": 1}, jax_warm_up=False)
    grader = Grader(ROOT / "exercises", settings)
    assert not grader.pool.filled()  # nothing started yet
    grader.start()
    try:
        deadline = time.monotonic() + 120
        while not grader.pool.filled() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert grader.pool.filled()
        assert grader.pool.sizes() == {"numpy": 1, "torch": 1}
        assert _grade(grader, GOOD) == "accepted"  # a server busy or between jobs still counts
        assert grader.pool.filled()
    finally:
        grader.stop()


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        path = Path(f"/proc/{todo.pop()}/task")
        for task in path.iterdir() if path.exists() else []:
            children = (task / "children").read_text().split()
            found += [int(c) for c in children]
            todo += [int(c) for c in children]
    return found


def test_a_server_starts_at_low_priority_and_its_jobs_do_not(grader: Grader) -> None:
    """A fork server's imports and warm-up are background work (issue 23: they took 1.4 of 4
    ms of CPU per page right after a start, nice or not, since each sandbox is a session and
    the kernel shares the CPU between sessions); each job is a session of its own, at 0."""
    if not Path("/proc/self/autogroup").exists():
        pytest.skip("this kernel does not group sessions (no autogroup): nothing to lower")
    _server(grader)
    servers = []
    for pid in _descendants(__import__("os").getpid()):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if b"python" in argv[0] and b"/grader/harness.py" in argv:  # not bwrap itself
                servers.append(Path(f"/proc/{pid}/autogroup").read_text().split()[-1])
        except OSError:
            continue
    assert servers and set(servers) == {"10"}, servers
    probe = _solution("", check="open('/proc/self/autogroup').read().split()[-1] != '0'")
    assert _grade(grader, probe) == "accepted"


def test_the_pool_fills_on_spare_cpu_and_starts_for_a_waiting_job_at_once() -> None:
    # A fill after a restart is background work; a start a student's job waits for is not.
    starts: list[tuple[str, bool]] = []

    def recording(key: str, settings: PoolSettings, *, background: bool) -> Any:
        starts.append((key, background))
        return start_interpreter(key, settings, background=background)

    settings = PoolSettings(sizes={"numpy": 1}, jax_warm_up=False)
    pool = WarmPool(settings, starter=recording)
    pool.start()
    try:
        running = pool.acquire("numpy")  # the fill's server
        running.kill_tree()
        running.close()
        job = pool.acquire("torch")  # no torch server: this job waits for its start
        job.kill_tree()
        job.close()
    finally:
        pool.stop()
    assert starts[:1] == [("numpy", True)], starts
    assert ("torch", False) in starts, starts


SCHED_ATTR = (
    "import ctypes\n"
    "class Attr(ctypes.Structure):\n"
    "    _fields_ = [(n, t) for n, t in (('size', ctypes.c_uint32), ('policy', ctypes.c_uint32),"
    " ('flags', ctypes.c_uint64), ('nice', ctypes.c_int32), ('priority', ctypes.c_uint32),"
    " ('runtime', ctypes.c_uint64), ('deadline', ctypes.c_uint64), ('period', ctypes.c_uint64))]\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "def get_attr(pid):\n"
    "    attr = Attr()\n"
    "    libc.syscall(315, pid, ctypes.byref(attr), ctypes.sizeof(Attr), 0)\n"
    "    return attr\n"
)


def test_a_job_cannot_change_the_servers_scheduling_slice(grader: Grader) -> None:
    # sched_setattr had no rule in the job filter and the slice was not compared after a job:
    # every later job of that server ran with a 100 us slice (issue 48).
    plant = _solution(
        SCHED_ATTR + "attr = get_attr(1)\nattr.runtime = 100_000\n"
        "CHANGED = libc.syscall(314, 1, ctypes.byref(attr), 0) == 0\n",
        "CHANGED",
    )
    assert _grade(grader, plant) == "accepted"
    probe = _solution(SCHED_ATTR, "get_attr(0).runtime == 100_000")
    assert _grade(grader, probe) == "accepted"


def test_a_job_may_change_its_own_scheduling(grader: Grader) -> None:
    own = _solution(
        SCHED_ATTR + "attr = get_attr(0)\nattr.runtime = 200_000\n"
        "OWN = libc.syscall(314, 0, ctypes.byref(attr), 0) == 0\n"
        "OWN = OWN and get_attr(0).runtime == 200_000\n"
        "os.sched_setaffinity(0, os.sched_getaffinity(0))\n"
        "os.sched_setaffinity(os.getpid(), os.sched_getaffinity(0))\n",
        "not OWN",
    )
    assert _grade(grader, own) == "accepted"


def test_a_job_that_leaves_all_the_files_it_can_keeps_its_server_and_time(grader: Grader) -> None:
    # Before /tmp was capped in files, a job left 1.09 M of them; deleting them one by one took
    # the server past the job's deadline and the whole server was replaced (issue 48).
    plant = _solution(
        "NAME = 'y' * 200\nos.makedirs('/tmp/d/e', exist_ok=True)\n"
        "end = time.monotonic() + 3.0\nmade = 0\n"
        "while time.monotonic() < end and made < 2_000_000:\n"
        "    folder = '/tmp/d/e' if made % 2 else '/tmp'\n"
        "    try:\n        os.close(os.open(f'{folder}/{made}{NAME}', os.O_CREAT | os.O_WRONLY))\n"
        "    except OSError:\n        break\n"
        "    made += 1\n"
        "os.chmod('/tmp/d/e', 0)\nos.chmod('/tmp/d', 0)\n"
    )
    server = _server(grader)
    started = time.monotonic()
    report = grader.grade(exercise=EXERCISE, code=plant, framework="numpy")
    took = time.monotonic() - started
    assert report.verdict == "accepted", report.message
    assert _server(grader) is server, "the server was replaced"
    waited = time.monotonic() - started - took  # the server emptied /tmp after the status
    print(f"\nthe job took {took:.2f} s; its server was ready again {waited:.2f} s later")
    probe = "os.path.lexists('/tmp/d') or len(os.listdir('/tmp')) > 5"
    assert _grade(grader, _solution("", probe)) == "accepted"


def test_a_job_that_nests_folders_past_every_limit_keeps_its_server(grader: Grader) -> None:
    # A recursive remover stopped at Python's recursion limit (and PATH_MAX): the server said
    # it could not clean up and was replaced. Now its cleaner removes any depth.
    plant = _solution(
        "os.chdir('/tmp')\n"
        "for _ in range(3_000):\n    os.mkdir('n')\n    os.chdir('n')\n"
        "for _ in range(3_000):\n    os.chdir('..')\n    os.chmod('n', 0)\n"
    )
    server = _server(grader)
    assert _grade(grader, plant) == "accepted"
    assert _server(grader) is server, "the server was replaced"
    assert _grade(grader, _solution("", "os.path.lexists('/tmp/n')")) == "accepted"
