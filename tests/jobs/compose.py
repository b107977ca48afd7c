"""docker-compose.yml as data, and its commands turned into the commands run on this machine.

Only three things change between the container and here: `python` is this interpreter, the web
server listens on 127.0.0.1 and a free port instead of 0.0.0.0:8000, and the health-check URL
follows that port. `native` makes exactly those changes and nothing else.
"""

from __future__ import annotations

import sys
from typing import Any

import yaml

from app.config import ROOT

COMPOSE_FILE = ROOT / "docker-compose.yml"
APP_SERVICES = ("migrate", "web", "worker")


def services() -> dict[str, Any]:
    """The services of the compose file."""
    data = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))
    found: dict[str, Any] = data["services"]
    return found


def command(service: str) -> list[str]:
    """A service's command, as the list compose runs."""
    argv = services()[service]["command"]
    assert isinstance(argv, list), f"{service}: write the command as a list"
    return [str(a) for a in argv]


def healthcheck(service: str) -> list[str]:
    """A service's health-check command without the leading CMD."""
    test = services()[service]["healthcheck"]["test"]
    assert test[0] == "CMD", f"{service}: the health check must be an exec-form CMD"
    return [str(a) for a in test[1:]]


def native(argv: list[str], *, port: int | None = None) -> list[str]:
    """The same command on this machine (see the module docstring for the only changes)."""
    out = [sys.executable if argv[0] == "python" else argv[0]]
    for i, arg in enumerate(argv[1:], start=1):
        previous = argv[i - 1]
        if previous == "--host" and arg == "0.0.0.0":  # the container listens on every address
            out.append("127.0.0.1")
        elif previous == "--port" and port is not None:
            out.append(str(port))
        elif port is not None and "127.0.0.1:8000" in arg:
            out.append(arg.replace("127.0.0.1:8000", f"127.0.0.1:{port}"))
        else:
            out.append(arg)
    return out
