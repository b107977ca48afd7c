"""Reference runs of the lab for the CLI and pages: cached tables of accuracy by length."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from app import yamlio
from graders import load_or_run, schemes_of


def lab_folders(exercises_dir: Path, slug: str | None = None) -> list[Path]:
    """Experiment exercise folders (one if `slug` is given); raises LookupError for a bad slug."""
    found = []
    for folder in sorted(p for p in exercises_dir.iterdir() if (p / "exercise.yaml").is_file()):
        meta = yamlio.safe_load((folder / "exercise.yaml").read_text(encoding="utf-8"))
        if (meta.get("entry") or {}).get("kind") == "experiment" and slug in (None, folder.name):
            found.append(folder)
    if slug is not None and not found:
        raise LookupError(f"no experiment exercise named '{slug}'")
    return found


def reference_runs(
    folder: Path, cache_dir: Path | None, announce: Callable[[str], None] | None = None
) -> dict[str, dict[str, Any]]:
    """Every reference scheme's result for one experiment (cached by content hash)."""
    results: dict[str, dict[str, Any]] = {}
    for scheme in schemes_of(folder):
        if announce is not None:
            announce(f"{folder.name}: {scheme}")
        results[scheme] = load_or_run(folder, scheme, cache_dir)
    return results


def _cell(result: dict[str, Any], length: str, part: str) -> str:
    if "nan_at_step" in result:
        return "NaN"
    value = (result.get(part) or {}).get(length)
    return "refused" if value is None else f"{value:.3f}"


def format_table(slug: str, results: dict[str, dict[str, Any]]) -> str:
    """A plain-text table: one row per scheme; the training length, then each longer length on
    its trained positions ("old") and its new ones; then CPU seconds."""
    first = next(iter(results.values()))
    train = int(first["train_length"])
    lengths = list(first.get("accuracy_by_length") or {})
    head, columns = ["scheme"], []
    for n in lengths:
        if int(n) <= train:
            head.append(f"{n} ({int(n) / train:g}x)")
            columns.append((n, "accuracy_by_length"))
        else:
            head += [f"{n} old", f"{n} new"]
            columns += [(n, "trained_by_length"), (n, "new_by_length")]
    head.append("cpu s")
    rows = [head] + [
        [scheme, *(_cell(r, n, part) for n, part in columns), f"{r.get('cpu_seconds', 0):.1f}"]
        for scheme, r in results.items()
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = [f"{slug} (trained on length {train}; old = positions < {train}, new = the rest)"]
    lines += [
        "  ".join(
            c.rjust(w) if i else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]
    return "\n".join(lines)
