"""Judging outputs that trusted code computed outside any sandbox: for benchmarks of judging
and of behaviour signatures (issue 51's planted class). Never for a student's code, which runs
only in the sandbox; this takes arrays, not programs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from graders import protocol
from graders.judging.judge import SLOTS, judge_outputs
from graders.judging.mistake_runner import load_or_compute
from graders.judging.spec import load_spec
from graders.raw_run import RawRun
from graders.report import Report


class OfflineJudge:
    """One function exercise's real cases, reference outputs and declared mistakes' outputs."""

    def __init__(self, folder: Path, cache_dir: Path | None) -> None:
        self.spec = load_spec(folder)
        self.spec.cache_dir = cache_dir
        if self.spec.entry_kind != "function":
            raise ValueError(f"{self.spec.slug} is not a function exercise")
        self.spec.expected()  # computed (or read) once, before anything is timed
        self._declared = load_or_compute(self.spec, cache_dir, background=False)

    def inputs(self) -> dict[int, dict[str, Any]]:
        """Every case's inputs by case index (NumPy arrays and numbers)."""
        return {case.index: dict(case.inputs) for case in self.spec.cases}

    def judge(self, outputs: dict[int, np.ndarray]) -> Report:
        """The report the grader would write for these outputs (one per case index)."""
        frames: dict[int, protocol.Result] = {i * SLOTS: out for i, out in outputs.items()}
        run = RawRun(
            frames=frames,
            ended=True,
            timed_out=False,
            exit_code=0,
            exit_signal=None,
            output="",
            output_truncated=False,
            max_rss_mb=None,
            cpu_ms=None,
            protocol_error=None,
        )
        return judge_outputs(
            spec=self.spec, cases=self.spec.cases, run=run, mistakes=lambda: self._declared
        )
