"""Can sandboxes start here? Asked once at start, again while they cannot, answered in plain words.

Without this, a machine that lacks bubblewrap (or forbids the user namespaces it needs) would
leave every submission "running" for ever while the pool retried. Instead the grader probes
with a trivial sandbox before it starts its pool; while that fails, every job gets an
internal_error report naming the cause and the fix within a moment, /healthz says
"unavailable: <why>", and the probe runs again every RETRY_S seconds (and before a job, when
the last try is older than RECHECK_S), so installing the missing piece needs no restart.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from graders.sandbox import SandboxError, SandboxLimits, sandbox_python, spawn
from graders.sandbox.launch import LaunchError, tool_path
from graders.sandbox.seccomp import SeccompError, build_filter

log = logging.getLogger(__name__)
PROBE_TIMEOUT_S = 20.0
RETRY_S = 30.0
RECHECK_S = 5.0
START_WAIT_S = 25.0
PROBE_LIMITS = SandboxLimits(
    cpu_seconds=10,
    memory_mb=256,
    max_processes=16,
    max_file_mb=1,
    max_open_files=64,
    output_bytes=16 * 1024,
    tmpfs_mb=4,
)
NO_BWRAP = (
    "bubblewrap (the bwrap command) is not installed, and without it code cannot be run safely. "
    "Install it: sudo apt-get install bubblewrap"
)
NO_USERNS = (
    "this system does not allow the user namespaces the sandbox needs, so allow them with "
    "sudo sysctl -w user.max_user_namespaces=15000 (on Debian also "
    "sudo sysctl -w kernel.unprivileged_userns_clone=1, on Ubuntu 24.04 also "
    "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0); in a container, where "
    "Docker's default seccomp profile refuses them the same way, start it with security_opt "
    "seccomp=deploy/seccomp-bwrap.json, apparmor=unconfined and systempaths=unconfined, as "
    "docker-compose.yml does"
)
USERNS_WORDS = ("namespace", "uid map", "uid_map")


def probe_sandbox() -> str | None:
    """None when a trivial sandbox starts and answers; else the cause, with how to fix it."""
    try:
        tool_path("bwrap")
    except LaunchError:
        return NO_BWRAP
    try:
        build_filter()
    except SeccompError as exc:
        return f"seccomp filters cannot be built ({exc}). Install: sudo apt-get install libseccomp2"
    # It waits after saying ready, so the cap on /tmp's files is set and checked too.
    argv = [sandbox_python(), "-S", "-c", "import os; os.write(4, b'R'); os.read(3, 1)"]
    try:
        proc = spawn(argv, limits=PROBE_LIMITS, ro_binds=[], env={})
    except (LaunchError, OSError) as exc:
        return f"the sandbox could not start: {_last_line(str(exc))}"
    try:
        proc.wait_ready(PROBE_TIMEOUT_S)
    except (SandboxError, TimeoutError) as exc:
        said = proc.output()[0].decode("utf-8", "replace")
        bwrap_said = " ".join(line for line in said.splitlines() if line.startswith("bwrap:"))
        if any(word in bwrap_said for word in USERNS_WORDS):
            return f"{NO_USERNS} (bubblewrap said: {_last_line(said)})"
        return f"the sandbox could not start: {_last_line(said) or _last_line(str(exc))}"
    finally:
        proc.kill_tree()
        proc.close()
    return None


def _last_line(text: str) -> str:
    """bwrap and Python put the reason on their last line."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


class Health:
    """The grader's state: "starting", "ready" or "unavailable: <why>"."""

    def __init__(self, probe: Callable[[], str | None] = probe_sandbox) -> None:
        self._probe = probe
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._reason: str | None = None
        self._state = "starting"
        self._checked = 0.0
        self._on_ready: Callable[[], None] = lambda: None
        self._stop = threading.Event()
        self._started = False

    def begin(self) -> None:
        """Probe now, in the background, while the rest of the grader is still being built:
        `start` then finds the answer (a restart's first server started 0.1 s later without)."""
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._loop, daemon=True, name="grader-health").start()

    def start(self, on_ready: Callable[[], None]) -> None:
        """Probe in the background (unless `begin` did); call `on_ready` once sandboxes work
        (retrying until then)."""
        with self._lock:
            self._on_ready = on_ready
            ready = self._state == "ready"
        self.begin()
        if ready:  # the probe `begin` started passed while the callback was still a no-op
            on_ready()

    def stop(self) -> None:
        """No more retries."""
        self._stop.set()

    def status(self) -> str:
        """What /healthz reports."""
        with self._lock:
            return self._state if self._reason is None else f"unavailable: {self._reason}"

    def blocked(self) -> str | None:
        """Why jobs cannot run now (waits for a first probe still under way), or None."""
        if not self._started:  # used without start(): probe here, once
            self._started = True
            self._check()
        with self._changed:
            self._changed.wait_for(lambda: self._state != "starting", START_WAIT_S)
            stale = self._reason is not None and time.monotonic() - self._checked > RECHECK_S
        if stale:
            self._check()
        with self._lock:
            # Still starting (a busy machine): not a failure. The job goes on to the pool, which
            # waits for an interpreter and reports repeated failures itself (PoolUnavailable).
            return self._reason

    def _loop(self) -> None:
        while not self._stop.is_set():
            if self._check():
                return
            self._stop.wait(RETRY_S)

    def _check(self) -> bool:
        try:
            reason = self._probe()
        except Exception as exc:  # a bug in the check must not leave jobs waiting on "starting"
            log.exception("the sandbox probe itself failed")
            reason = f"the grader could not check its sandbox ({type(exc).__name__}: {exc})"
        with self._changed:
            was_ready = self._state == "ready" and self._reason is None
            self._checked = time.monotonic()
            self._reason = reason
            self._state = "ready" if reason is None else "unavailable"
            on_ready = self._on_ready  # with the state: `start` calls it if it came later
            self._changed.notify_all()
        if reason is not None:
            log.error("grading is unavailable: %s", reason)
            return False
        if not was_ready:
            log.info("sandboxes start: grading is ready")
            on_ready()
        return True
