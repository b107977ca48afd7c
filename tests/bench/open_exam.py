"""A copy of the shipped course whose midterm is open now, as on exam day (links, one file)."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def open_exam_content(folder: Path) -> Path:
    """The repository's courses in FOLDER, the midterm's window around the present hour."""
    folder.mkdir(parents=True)
    for name in ("course.yaml", "lessons", "exercises", "courses"):
        (folder / name).symlink_to(ROOT / name)
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    text = (ROOT / "assessments" / "midterm.yaml").read_text(encoding="utf-8")
    window = {"opens": now - dt.timedelta(hours=1), "closes": now + dt.timedelta(hours=2)}
    for key, when in window.items():
        stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ")
        text = re.sub(rf"^{key}:.*$", f"{key}: {stamp}", text, count=1, flags=re.MULTILINE)
    (folder / "assessments").mkdir()
    (folder / "assessments" / "midterm.yaml").write_text(text, encoding="utf-8")
    return folder
