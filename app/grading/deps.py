"""The grader as a route's dependency: `GraderDep` starts it on first use, `RunningGraderDep`
never does.

Why apart from service.py: `serve` starts the grader before any web framework is
imported (issue 54).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from app.grading.service import process_grader, running_grader
from graders import Grader

# Routes take the grader as a dependency; tests override `process_grader` or `running_grader`.
GraderDep = Annotated[Grader, Depends(process_grader)]
# For readers that must not start a grader (metrics).
RunningGraderDep = Annotated[Grader | None, Depends(running_grader)]
