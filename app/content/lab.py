"""Reference runs of the lab for the CLI and pages: cached tables of accuracy by length."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from app import yamlio
from app.content.lab_seeds import SOLUTION, by_bucket, solution_twin, summarise
from graders import load_or_run, schemes_of, seeded_runs


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


def _workers() -> int:
    """Runs trained at once: each is one torch thread in a child process, so one per core."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(usable or 1, 4))


def reference_runs(
    folder: Path,
    cache_dir: Path | None,
    announce: Callable[[str], None] | None = None,
    workers: int | None = None,
) -> dict[str, dict[str, Any]]:
    """Every reference scheme's runs over its seeds (each cached by content hash), summarised;
    the runs missing from the cache are trained side by side, one per core. The model solution
    is trained with the first seed, and with the others only if it repeats no scheme's run."""
    names = {scheme: seeded_runs(folder, scheme) for scheme in schemes_of(folder)}

    def one(run: str) -> dict[str, Any]:
        if announce is not None:
            announce(f"{folder.name}: {run}")
        return load_or_run(folder, run, cache_dir)

    later = names.get(SOLUTION, [])[1:]
    flat = [run for runs in names.values() for run in runs if run not in later]
    with ThreadPoolExecutor(max_workers=workers or _workers()) as pool:
        done = dict(zip(flat, pool.map(one, flat), strict=True))
        twin = solution_twin({scheme: done[runs[0]] for scheme, runs in names.items()})
        if twin is None:
            done.update(zip(later, pool.map(one, later), strict=True))
        else:
            done.update({run: done[names[twin][1 + k]] for k, run in enumerate(later)})  # stand-ins
    return {scheme: summarise([done[r] for r in runs]) for scheme, runs in names.items()}


def _cell(result: dict[str, Any], length: str, part: str) -> str:
    if "nan_at_step" in result:
        return "NaN"
    value = (result.get(part) or {}).get(length)
    if value is None:
        return "refused"
    low, high = ((result.get("spread") or {}).get(part) or {}).get(length, (value, value))
    return f"{value:.3f} ({low:.2f}-{high:.2f})"


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
    seeds = len(first.get("seeds") or [0])
    lines = [
        f"{slug} (trained on length {train}; old = positions < {train}, new = the rest; "
        f"mean over {seeds} seeds (lowest-highest seed))"
    ]
    lines += [
        "  ".join(
            c.rjust(w) if i else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]
    return "\n".join(lines)


def format_positions(folder: Path, results: dict[str, dict[str, Any]]) -> str:
    """Accuracy by position bucket: one row per scheme, mean over the seeds (lowest-highest)."""
    meta = yamlio.safe_load((folder / "exercise.yaml").read_text(encoding="utf-8"))
    offset = int(meta["experiment"].get("offset", 3))
    longest = max(int(n) for r in results.values() for n in r.get("accuracy_by_length") or {})
    rows = []
    for scheme, run in results.items():
        cells = []
        for _first, _last, got in by_bucket(run.get("per_seed") or [], longest, offset):
            cells.append("-" if got is None else f"{got[0]:.2f} ({got[1]:.2f}-{got[2]:.2f})")
        rows.append([scheme, *cells])
    head = ["positions", *(f"{a}-{b}" for a, b, _ in by_bucket([], longest, offset))]
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    lines = [f"{folder.name} by position (mean over the seeds, lowest-highest seed; - = refused)"]
    lines += [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in [head, *rows]
    ]
    return "\n".join(lines)
