"""Content files' markdown kept rendered on disk, so a restart reads it instead of rendering.

Why: rendering the first course's lessons, statements and hints costs 0.5-0.9 s of CPU at each
start (markdown, math, highlighting) before the server answers; reading it back costs a few
milliseconds (issue 54). A kept file that is damaged or unreadable only costs that rendering.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
import tempfile
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

log = logging.getLogger(__name__)

# The libraries whose output is in the HTML: another version renders afresh.
LIBRARIES = ("markdown-it-py", "mdit-py-plugins", "latex2mathml", "nh3", "Pygments", "PyYAML")


def renderer_key(modules: Iterable[str]) -> str:
    """What the HTML depends on besides the text: the renderer's own code and its libraries."""
    digest = hashlib.sha256()
    for name in sorted(modules):
        source = sys.modules[name].__file__ if name in sys.modules else None
        digest.update(name.encode() + b"\0")
        digest.update(Path(source).read_bytes() if source else b"?")
    for library in LIBRARIES:
        digest.update(f"{library}={metadata.version(library)}\0".encode())
    return digest.hexdigest()[:20]


class KeptRenders:
    """One file per text's digest: a checksum line, then the HTML (written whole, by rename)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._warned = False

    def get(self, digest: str) -> str | None:
        """The kept HTML, or None when missing, unreadable or not what was written."""
        try:
            checksum, _, html = (
                (self.directory / f"{digest}.html").read_text("utf-8").partition("\n")
            )
        except (OSError, UnicodeDecodeError):
            return None
        return html if checksum == _checksum(html) else None

    def put(self, digest: str, html: str) -> None:
        """Keep this HTML; a directory that cannot be written is said once, then ignored."""
        temporary = None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=self.directory, suffix=".part")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(f"{_checksum(html)}\n{html}")
            os.replace(temporary, self.directory / f"{digest}.html")
        except OSError as exc:
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)
            if not self._warned:
                self._warned = True
                log.warning(
                    "content is rendered at each start: cannot keep it in %s: %s",
                    self.directory,
                    exc,
                )


def _checksum(html: str) -> str:
    return hashlib.sha256(html.encode("utf-8")).hexdigest()
