"""Structured logs: one JSON object per line, carrying the submission id a message is about."""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
from typing import Any

# Attributes every LogRecord has; anything else was passed with `extra=` and is kept as a field.
_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    """ts, level, logger, msg, pid, then the extra fields (submission_id, verdict, ...)."""

    def format(self, record: logging.LogRecord) -> str:
        """One line of JSON."""
        entry: dict[str, Any] = {
            "ts": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            "pid": os.getpid(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def configure_logging(fmt: str) -> None:
    """Switch the root handlers to JSON when asked; text stays the default."""
    if fmt != "json":
        return
    root = logging.getLogger()
    if not root.handlers:
        logging.basicConfig(level=logging.INFO)
    for handler in root.handlers:
        handler.setFormatter(JsonFormatter())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        for handler in logging.getLogger(name).handlers:
            handler.setFormatter(JsonFormatter())
