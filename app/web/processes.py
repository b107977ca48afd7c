"""Several web processes on one port, each listening on a socket of its own (SO_REUSEPORT).

Why not uvicorn's own `--workers`: its processes share one listening socket, so when a class
connects at once, whichever process wakes first takes the connections, and keeps them for every
page after (keep-alive). Measured with 1,000 students (issue 23): one process did 65% of the
work, ran out of its one core (Python runs one thread at a time) and set everyone's wait, while
the other idled at 40% of a core. With a socket each, the kernel hands every new connection to
one of them by a hash of its addresses: an even split whatever each process is doing.
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import socket
import sys
import threading
from multiprocessing.context import SpawnProcess
from typing import Any

from uvicorn.config import STARTUP_FAILURE  # the app could not start: no point restarting

from app.web import heap

BACKLOG = 2048  # uvicorn's default
STOP_SECONDS = 30.0  # a process's graceful shutdown (open streams end, requests finish)

log = logging.getLogger("uvicorn.error")


def port_socket(host: str, port: int) -> socket.socket:
    """A socket bound with SO_REUSEPORT (every web process binds the same port to its own).

    Not listening yet: uvicorn listens once the app has started, so the kernel sends no
    connection to a process still starting (a replaced one), where it would wait in the backlog.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock


def serve_one(options: dict[str, Any], host: str, port: int) -> None:
    """In a web process: serve the app on this process's own socket until told to stop."""
    heap.pause()  # the app's start resumes collections once it is done
    import uvicorn

    sock = port_socket(host, port)
    config = uvicorn.Config(**options, host=host, port=port, backlog=BACKLOG)
    server = uvicorn.Server(config)
    server.run(sockets=[sock])
    if not server.started:
        sys.exit(STARTUP_FAILURE)


def serve_processes(*, options: dict[str, Any], host: str, port: int, count: int) -> int:
    """Run `count` web processes; one that dies is replaced; SIGTERM or Ctrl-C stops them all."""
    context = multiprocessing.get_context("spawn")
    stop = threading.Event()
    failed = False

    def start() -> SpawnProcess:
        process = context.Process(target=serve_one, args=(options, host, port), daemon=False)
        process.start()
        return process

    previous = {
        sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)
    }
    processes = [start() for _ in range(count)]
    log.info("Started %d web processes, each on its own socket of port %d", count, port)
    try:
        while not stop.wait(0.5):
            for index, process in enumerate(processes):
                if process.is_alive():
                    continue
                if process.exitcode == STARTUP_FAILURE:
                    log.error("A web process could not start (see above); stopping them all")
                    failed = True
                    stop.set()
                    break
                log.warning(
                    "Web process %s ended (status %s); starting another",
                    process.pid,
                    process.exitcode,
                )
                processes[index] = start()
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()  # SIGTERM: uvicorn finishes what it serves, then exits
        for process in processes:
            process.join(STOP_SECONDS)
            if process.is_alive():
                process.kill()
                process.join()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 1 if failed else 0
