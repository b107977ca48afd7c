"""The job filter: a job is one process that reaches nothing else, and threads still work.

Each snippet runs in a real sandbox, installs the filter exactly as the harness does, then
tries what a submission might: new processes, signals and limits for other processes, memory
that RLIMIT_DATA does not count. Syscalls go through ctypes so Python's wrappers cannot hide them.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from tests.graders.sandbox.helpers import requires_sandbox, run

pytestmark = requires_sandbox

SECCOMP = Path(__file__).resolve().parents[3] / "graders" / "sandbox" / "seccomp.py"
BINDS = [(str(SECCOMP), "/grader/seccomp.py")]
PRELUDE = """
import ctypes, os, sys, threading
sys.path.insert(0, "/grader")
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(*args):
    rc = libc.syscall(*[ctypes.c_long(a) for a in args])
    return (rc, ctypes.get_errno() if rc < 0 else 0)
helper = 0
if {spare}:
    helper = os.fork()  # before the filter: a process of the sandbox the job must not reach
    if helper == 0:
        import time
        time.sleep(60)
        os._exit(0)
import seccomp
seccomp.install_job_filter()
"""
# x86_64 numbers: (name, syscall number, args that would succeed without the filter)
REFUSED = {
    "fork": (57,),
    "vfork-like clone": (56, 0x4111, 0, 0, 0, 0),  # CLONE_VM | CLONE_VFORK | SIGCHLD
    "plain clone": (56, 17, 0, 0, 0, 0),  # SIGCHLD only: a new process
    "memfd_create": (319, 0, 0),
    "shared anonymous mmap": (9, 0, 4096, 3, 0x21, -1, 0),
    "shared-validate anonymous mmap": (9, 0, 4096, 3, 0x23, -1, 0),
    "setpriority for the whole uid": (141, 2, 0, 5),  # PRIO_USER
    "prlimit of pid 1": (302, 1, 7, 0, 0),
    "pidfd_open of pid 1": (434, 1, 0),
    # Scheduling of a task that is not the job's (its parent: test below).
    "sched_setattr with stray upper bits": (314, 1 << 32 | 1, 0, 0),
    "sched_setaffinity of a pid past any pid_max": (203, 1 << 22 | 1, 8, 0),
}
# As in a fork server: pid 1 forks the job, which installs the filter and tries its parent.
FORKED_JOB = """
import ctypes, os, sys
sys.path.insert(0, "/grader")
import seccomp
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
if os.fork() == 0:
    seccomp.install_job_filter()
    attr = ctypes.create_string_buffer(64)
    libc.syscall(ctypes.c_long(315), ctypes.c_long(1), attr, ctypes.c_long(64), ctypes.c_long(0))
    mask, param = ctypes.c_ulong(1), ctypes.c_int(0)
    calls = {{
        "sched_setattr": (314, 1, ctypes.addressof(attr), 0),
        "sched_setscheduler": (144, 1, 3, ctypes.addressof(param)),  # SCHED_BATCH
        "sched_setparam": (142, 1, ctypes.addressof(param)),
        "sched_setaffinity": (203, 1, 8, ctypes.addressof(mask)),
    }}
    name = {name!r}
    rc = libc.syscall(*[ctypes.c_long(a) for a in calls[name]])
    os.write(4, repr((rc, ctypes.get_errno() if rc < 0 else 0)).encode())
    os._exit(0)
os.wait()
"""


@pytest.mark.parametrize(
    "name", ["sched_setattr", "sched_setscheduler", "sched_setparam", "sched_setaffinity"]
)
def test_the_job_cannot_reschedule_its_parent(name: str) -> None:
    # Issue 48: sched_setattr on the fork server (pid 1) had no rule; the others are refused too.
    assert run(FORKED_JOB.format(name=name), ro_binds=BINDS).value == (-1, errno.EPERM)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused(name: str) -> None:
    code = PRELUDE.format(spare=False) + f"report(call(*{REFUSED[name]!r}))"
    assert run(code, ro_binds=BINDS).value == (-1, errno.EPERM)


def test_clone3_says_not_implemented_so_glibc_falls_back_to_clone() -> None:
    code = PRELUDE.format(spare=False) + "report(call(435, 0, 0))"
    assert run(code, ro_binds=BINDS).value == (-1, errno.ENOSYS)


def test_threads_private_memory_and_own_limits_still_work() -> None:
    code = (
        PRELUDE.format(spare=False)
        + """
import mmap, resource
found = []
threads = [threading.Thread(target=lambda: found.append(sum(range(1000)))) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
private = mmap.mmap(-1, 1 << 20, flags=mmap.MAP_PRIVATE)
private[0] = 7
resource.setrlimit(resource.RLIMIT_NOFILE, (32, 32))
os.nice(1)
report((len(found), private[0], resource.getrlimit(resource.RLIMIT_NOFILE)))
"""
    )
    assert run(code, ro_binds=BINDS).value == (8, 7, (32, 32))


def test_signals_reach_only_the_job_itself() -> None:
    code = (
        PRELUDE.format(spare=True)
        + """
import signal
# (This snippet is the sandbox's pid 1 itself; in a fork server the job never is.)
results = [call(62, helper, 9), call(62, -1, 9), call(62, 0, 9),
           call(234, helper, helper, 9), call(62, (1 << 32) | helper, 9)]
signal.signal(signal.SIGUSR1, lambda *a: results.append("own signal"))
os.kill(os.getpid(), signal.SIGUSR1)
alive = os.waitpid(helper, os.WNOHANG) == (0, 0)
report((results, alive))
"""
    )
    results, alive = run(code, ro_binds=BINDS).value
    assert results == [(-1, errno.EPERM)] * 5 + ["own signal"]
    assert alive


def test_every_thread_is_bound_not_only_the_caller() -> None:
    # A thread started before the filter (as frameworks do) must not be a way around it.
    code = """
import ctypes, os, sys, threading
sys.path.insert(0, "/grader")
go, done = threading.Event(), []
def worker():
    go.wait()
    try:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        done.append("forked")
    except OSError as exc:
        done.append(exc.errno)
t = threading.Thread(target=worker)
t.start()
import seccomp
seccomp.install_job_filter()
go.set()
t.join()
report(done)
"""
    assert run(code, ro_binds=BINDS).value == [errno.EPERM]


def test_a_job_may_reschedule_itself_and_its_threads() -> None:
    code = PRELUDE.format(spare=False) + (
        "cpus = os.sched_getaffinity(0)\n"
        "started, stop = threading.Event(), threading.Event()\n"
        "def work():\n    started.set()\n    stop.wait()\n"
        "thread = threading.Thread(target=work)\nthread.start()\nstarted.wait()\n"
        "done = []\n"
        "for target in (0, os.getpid(), thread.native_id):\n"
        "    os.sched_setaffinity(target, cpus)\n"
        "    os.sched_setscheduler(target, os.SCHED_BATCH, os.sched_param(0))\n"
        "    done.append(os.sched_getscheduler(target) == os.SCHED_BATCH)\n"
        "stop.set()\nthread.join()\nreport(done)"
    )
    assert run(code, ro_binds=BINDS).value == [True, True, True]
