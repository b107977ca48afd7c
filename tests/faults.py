"""Real dependencies made to go away: a loopback TCP relay the test can cut and restore.

The app talks to the real PostgreSQL or Redis through the relay; cutting it is what a stopped
server looks like from the app (new connections refused, open ones reset), without stopping
the machine's shared servers.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import select
import socket
import struct
import sys
import threading
from collections.abc import Iterator

import pytest

CHUNK = 65536


class Relay:
    """Forwards 127.0.0.1:<port> to 127.0.0.1:<target>; `cut()` and `restore()` the path."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self._listener: socket.socket | None = None
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self.restore()

    def restore(self) -> None:
        """Listen again on the same port: the server is back."""
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(128)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        """Refuse new connections and reset the open ones: the server is gone."""
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        with self._lock:
            doomed, self._open = self._open, set()
        for sock in doomed:
            with contextlib.suppress(OSError):  # RST, as a dead server's kernel would answer
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()

    def close(self) -> None:
        """Stop for good."""
        self.cut()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(("127.0.0.1", self.target_port), timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self._lock:
                self._open |= {client, server}
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        peers = {a: b, b: a}
        try:
            while True:
                ready, _, _ = select.select([a, b], [], [], 1.0)
                for sock in ready:
                    data = sock.recv(CHUNK)
                    if not data:
                        return
                    peers[sock].sendall(data)
        except (OSError, ValueError):
            return
        finally:
            with self._lock:
                self._open -= {a, b}
            for sock in (a, b):
                with contextlib.suppress(OSError):
                    sock.close()


@contextlib.contextmanager
def relay_to(target_port: int) -> Iterator[Relay]:
    """A relay for the length of a test."""
    relay = Relay(target_port)
    try:
        yield relay
    finally:
        relay.close()


def jump_process_clock(monkeypatch: pytest.MonkeyPatch, by: dt.timedelta) -> int:
    """This process's wall clock jumps by BY for all app code: every `utcnow` it imported.

    The machine's clock is shared with everyone on it, so the jump stays inside the process.
    Returns how many modules had it (the test checks the jump reached somebody).
    """
    from app import models_base

    real = models_base.utcnow

    def jumped() -> dt.datetime:
        return real() + by

    patched = 0
    for name, module in list(sys.modules.items()):
        if (name == "app" or name.startswith("app.")) and getattr(module, "utcnow", None) is real:
            monkeypatch.setattr(module, "utcnow", jumped)
            patched += 1
    return patched
