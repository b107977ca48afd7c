"""The job filter and rlimits leave a job no memory outside RLIMIT_DATA (issue 22).

RLIMIT_DATA counts private writable mappings only. Each test here tries one way to hold memory
it does not count (shared mappings, stack, pages pinned by pipes, socket buffers, writes through
/proc/self/mem past a read-only protection, kernel objects) in a real sandbox, with the job
filter installed exactly as the harness installs it, and checks that the way is shut while what
a job legitimately does (private mappings, files in /tmp, pipes, threads) still works.
"""

from __future__ import annotations

import errno
import signal

import pytest

from tests.graders.sandbox.helpers import requires_sandbox, run
from tests.graders.sandbox.test_job_filter import BINDS, PRELUDE

pytestmark = requires_sandbox

SETUP = PRELUDE.format(spare=False)
# x86_64 numbers: (syscall number, arguments); without the filter each gives something else
# than EPERM (success, or EBADF for the descriptor -1).
REFUSED_CALLS = {
    "mmap MAP_GROWSDOWN": (9, 0, 1 << 20, 3, 0x122, -1, 0),  # private anonymous, grows down
    "mmap MAP_SHARED of no file": (9, 0, 4096, 1, 0x01, -1, 0),  # EBADF without the filter
    "vmsplice": (278, -1, 0, 0, 0),
    "splice": (275, -1, 0, -1, 0, 1, 0),
    "tee": (276, -1, -1, 1, 0),
    "socket AF_UNIX": (41, 1, 1, 0),
    "prctl PR_SET_DUMPABLE": (157, 4, 1, 0, 0, 0),
    "inotify_init1": (294, 0),
    "memfd_secret": (447, 0),
}
# What a job would do: each snippet ends in report(<outcome>); the filter makes it an OSError.
REFUSED_SNIPPETS = {
    "shared mapping of /dev/zero": """
import mmap
fd = os.open("/dev/zero", os.O_RDWR)
mmap.mmap(fd, 1 << 20, flags=mmap.MAP_SHARED)
""",
    "read-only shared mapping of /dev/zero": """
import mmap
fd = os.open("/dev/zero", os.O_RDONLY)
mmap.mmap(fd, 1 << 20, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ)
""",
    "shared mapping of a file in /tmp": """
import mmap
fd = os.open("/tmp/shared", os.O_RDWR | os.O_CREAT)
os.ftruncate(fd, 1 << 20)
mmap.mmap(fd, 1 << 20, flags=mmap.MAP_SHARED)
""",
    "MAP_SHARED_VALIDATE mapping of a file in /tmp": """
libc.mmap.restype = ctypes.c_long
fd = os.open("/tmp/shared", os.O_RDWR | os.O_CREAT)
os.ftruncate(fd, 1 << 20)
args = [ctypes.c_long(a) for a in (0, 1 << 20, 3, 0x03, fd, 0)]
if libc.mmap(*args) == -1:
    raise OSError(ctypes.get_errno(), "mmap")
""",
    "socketpair": "import socket\nsocket.socketpair()\n",
    "resizing a pipe": """
import fcntl
read_end, write_end = os.pipe()
fcntl.fcntl(write_end, 1031, 1 << 20)  # F_SETPIPE_SZ
""",
    "writing /proc/self/mem": "os.open('/proc/self/mem', os.O_RDWR)\n",
    "exec, which would make the process dumpable again": (
        "os.execv(sys.executable, [sys.executable, '-c', 'pass'])\n"
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED_CALLS))
def test_refused_call(name: str) -> None:
    code = SETUP + f"report(call(*{REFUSED_CALLS[name]!r}))"
    assert run(code, ro_binds=BINDS).value == (-1, errno.EPERM)


@pytest.mark.parametrize("name", sorted(REFUSED_SNIPPETS))
def test_refused_snippet(name: str) -> None:
    snippet = "\n    ".join(REFUSED_SNIPPETS[name].strip().splitlines())
    code = SETUP + f"try:\n    {snippet}\n    report('allowed')\nexcept OSError as exc:\n"
    code += "    report(exc.errno)\n"
    result = run(code, ro_binds=BINDS)
    assert result.value in (errno.EPERM, errno.EACCES), result.text


def test_what_a_job_needs_still_works() -> None:
    code = (
        SETUP
        + """
import mmap, resource
with open("/tmp/data", "wb") as handle:
    handle.write(b"abc" * 4096)
with open("/tmp/data", "r+b") as handle:
    private = mmap.mmap(handle.fileno(), 0, flags=mmap.MAP_PRIVATE)
    private[0:1] = b"z"
    readonly = mmap.mmap(handle.fileno(), 0, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)
anonymous = mmap.mmap(-1, 1 << 20, flags=mmap.MAP_PRIVATE)
anonymous[5] = 9
read_end, write_end = os.pipe()
os.write(write_end, b"through a pipe")
found = []
threads = [threading.Thread(target=lambda: found.append(1)) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
with open("/proc/self/status") as status:
    data = [line for line in status if line.startswith("VmData")]
report((private[0:3], readonly[0:3], anonymous[5], os.read(read_end, 64), len(found), len(data)))
"""
    )
    result = run(code, ro_binds=BINDS)
    assert result.value == (b"zbc", b"abc", 9, b"through a pipe", 4, 1), result.text


def test_stack_cannot_grow_past_a_small_hard_limit() -> None:
    # The stack is not data: a job that raised its own limit could grow it by gigabytes.
    code = """
import ctypes, resource
soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
resource.setrlimit(resource.RLIMIT_STACK, (hard, hard))
with open("/proc/self/maps") as maps:
    bottom = next(int(l.split("-")[0], 16) for l in maps if l.rstrip().endswith("[stack]"))
os.write(2, repr((soft, hard)).encode())
ctypes.memset(bottom - (64 << 20), 1, 1)  # 64 MB below the stack: the kernel would grow it
report("grew")
"""
    result = run(code)
    assert result.status.signal == signal.SIGSEGV, (result.text, result.result)
    assert result.text == repr((8 << 20, 8 << 20))


def test_pending_signals_and_timers_are_few() -> None:
    # Each POSIX timer is kernel memory; the pending-signal limit bounds how many a job makes.
    code = """
import ctypes, resource
libc = ctypes.CDLL(None, use_errno=True)
class SigEvent(ctypes.Structure):
    _fields_ = [("value", ctypes.c_long), ("signo", ctypes.c_int), ("notify", ctypes.c_int),
                ("padding", ctypes.c_byte * 48)]
event, timer, made = SigEvent(0, 0, 1), ctypes.c_void_p(), 0
while made < 200_000 and libc.timer_create(1, ctypes.byref(event), ctypes.byref(timer)) == 0:
    made += 1
report((made, ctypes.get_errno(), resource.getrlimit(resource.RLIMIT_SIGPENDING)))
"""
    made, error, limit = run(code).value
    assert limit == (1024, 1024)
    assert made <= 1024 and error == errno.EAGAIN
