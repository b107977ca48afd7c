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
}


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
