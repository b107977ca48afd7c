"""Two steps of `make compose-check`: the hardening as documented, and bad input named at once.

Hardening (docs/operations.md, "The sandbox inside a container"): no container of the check is
privileged or given CAP_SYS_ADMIN, and no process in any of them runs as root.
Bad input (issue 52, point 5): a missing secret, a database that never answers and a container
whose seccomp profile refuses the sandbox's namespaces (what a kernel without unprivileged user
namespaces looks like to bubblewrap) each give one sentence naming the fix, within seconds.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable

from checklib import Miss, run

APP_UID = 10001  # the image's user `app` (Dockerfile)
PROCESS_UIDS = (
    "import os\n"
    "uids = set()\n"
    "for p in filter(str.isdigit, os.listdir('/proc')):\n"
    "    try: uids.add(os.stat('/proc/' + p).st_uid)\n"
    "    except OSError: pass\n"
    "print(' '.join(map(str, sorted(uids))))"
)
PROBE = (
    "import sys; from graders.host.health import probe_sandbox; "
    "why = probe_sandbox(); print(why); sys.exit(1 if why else 0)"
)
SECONDS = 60.0  # "within seconds", with room for a 2-core machine shared by other work


def hardening(docker: str, containers: Callable[[str], list[str]]) -> str:
    """Every container of the check: not privileged, no CAP_SYS_ADMIN, no process as root."""
    seen = []
    for service in ("db", "redis", "web", "worker"):
        for container in containers(service):
            info = json.loads(run([docker, "inspect", container]).stdout)[0]
            host = info["HostConfig"]
            caps = host.get("CapAdd") or []
            if host.get("Privileged") or any("SYS_ADMIN" in c for c in caps):
                raise Miss(f"{service}: privileged {host.get('Privileged')}, cap_add {caps}")
            python = "python" if service in ("web", "worker") else None
            if python:
                out = run([docker, "exec", container, python, "-c", PROCESS_UIDS]).stdout
                uids = {int(u) for u in out.split()}
                if uids != {APP_UID}:
                    raise Miss(f"{service}: processes run as uids {sorted(uids)}, not {APP_UID}")
            else:
                out = run([docker, "exec", container, "id", "-u"]).stdout
                if int(out) == 0:
                    raise Miss(f"{service} runs as root")
            seen.append(service)
    counts = {s: seen.count(s) for s in dict.fromkeys(seen)}
    return (
        f"not privileged, no CAP_SYS_ADMIN, no root process in {counts} "
        f"(web and workers: every process uid {APP_UID})"
    )


def _timed(what: str, argv: list[str], expected: list[str], env: dict[str, str] | None) -> str:
    """Run a command that must fail at once with a sentence holding `expected`."""
    started = time.monotonic()
    result = run(argv, check=False, timeout=SECONDS * 2, env=env)
    took = time.monotonic() - started
    said = (result.stdout + result.stderr).decode(errors="replace")
    fix = expected[-1]
    line = next((ln for ln in said.splitlines() if fix in ln), "")
    if result.returncode == 0 or not line or not all(e in said for e in expected) or took > SECONDS:
        raise Miss(f"{what}: exit {result.returncode} in {took:.0f} s, said {said[-400:]!r}")
    end = line.rindex(fix) + len(fix)
    return f"{what} in {took:.1f} s: ...{line[max(0, end - 150) : end]}"


def bad_input(compose: list[str], docker: str, app_image: str) -> list[str]:
    """Three mistakes an operator makes, each refused at once with the fix named."""
    notes = []
    for secret, fix in (
        ("POSTGRES_PASSWORD", "set POSTGRES_PASSWORD"),
        ("SECRET_KEY", "set SECRET_KEY to a long random value"),
    ):
        env = {k: v for k, v in os.environ.items() if k != secret}
        notes.append(_timed(f"{secret} missing", [*compose, "config", "-q"], [fix], env))
    nowhere = "postgresql://course:nothing@127.0.0.1:5432/course"  # the container's own loopback
    notes.append(
        _timed(
            "no database",
            [
                *compose,
                "run",
                "--rm",
                "--no-deps",
                "-T",
                "-e",
                f"DATABASE_URL={nowhere}",
                "-e",
                "DATABASE_WAIT_SECONDS=5",
                "migrate",
            ],
            ["did not answer within 5 s", "start it, or point DATABASE_URL"],
            None,
        )
    )
    # Docker's default seccomp profile (no security_opt): bwrap's namespaces are refused.
    notes.append(
        _timed(
            "sandbox refused",
            [docker, "run", "--rm", "--network", "none", app_image, "python", "-c", PROBE],
            ["user namespaces", "seccomp=deploy/seccomp-bwrap.json"],
            None,
        )
    )
    return notes
