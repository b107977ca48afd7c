"""Runs INSIDE the sandbox: a JAX job's cases compiled as one program each, where that is cheaper.

Used where a job must compile (after a forked child's reset, graders/inside/jax_child.py; in a
fresh JAX process once a case compiled natively, graders/inside/harness.py). Measured and
explained in docs/jax-fork-reset.md ("After the reset: one program per case").
"""

from __future__ import annotations

import functools
import io
import sys
from collections.abc import Callable
from typing import Any

# A case whose program has more operations than this (nested ones counted) runs op by op: a
# Python loop unrolled into one program compiles for longer than its operations one by one.
WHOLE_MAX_OPS = 40
# Random numbers (Flax's initialisers) lower to large programs: compiled into every case's own
# program they cost 0.25 s a case, while op by op they are compiled once per shape (and the
# warmed server's are hits).
OP_BY_OP_PRIMITIVES = frozenset({"threefry2x32", "erf_inv"})


def _ops(jaxpr: Any) -> int:
    """The operations of a program, nested ones counted; a random-number one counts as many."""
    from jax._src import core

    total = 0
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name.startswith("random_") or name in OP_BY_OP_PRIMITIVES:
            return WHOLE_MAX_OPS + 1
        total += 1 + sum(_ops(sub) for sub in core.jaxprs_in_params(eqn.params))
    return total


COMPILE_THREADS = 2  # the machine's cores: a job alone compiles its cases side by side


class WholePrograms:
    """After a reset nothing is compiled, so each case's computation is compiled as ONE program.

    Run op by op, every operation is a compilation per input shape (about 20 ms each, five to
    ten per case for an indexing expression); one program per case costs about as much as one
    of them. Every case's call of the student's function is traced first, in order (prints
    held back), and the programs compile side by side while the cases run in order. A case
    that cannot be traced (values used as Python numbers, NumPy calls on arrays), that prints,
    or whose program is large, runs op by op exactly as before, and so do all later cases of a
    job whose code could not be traced or printed, so what a student sees and prints is
    unchanged. `run(position)` gives the output of case `position` of `inputs`.
    """

    def __init__(self, entry: Callable[..., Any], inputs: list[dict[str, Any]]) -> None:
        self.entry = entry
        self.inputs = inputs
        self.op_by_op = False
        self.programs: list[Any] | None = None  # per case: (a future program, static names)

    def whole_now(self) -> bool:
        """Whether the cases from here on are compiled as one program each."""
        return True

    def run(self, position: int) -> Any:
        args = self.inputs[position]
        if self.programs is None and self.whole_now():
            self.programs = self._compile_from(position)
        planned = self.programs[position] if self.programs is not None else None
        if planned is not None:
            future, static = planned
            try:
                program = future.result()
            except Exception:  # op by op then says what is wrong, if anything
                program = None
            if program is not None:
                return program(**{k: v for k, v in args.items() if k not in static})
        return self.entry(**args)

    def _compile_from(self, start: int) -> list[Any]:
        import concurrent.futures

        planned: list[Any] = [None] * len(self.inputs)
        pool = concurrent.futures.ThreadPoolExecutor(COMPILE_THREADS, "compile")
        for position in range(start, len(self.inputs)):
            if self.op_by_op:
                break
            traced = self._trace(self.inputs[position])
            if traced is not None:
                lowered, static = traced
                planned[position] = (pool.submit(lowered.compile), static)
        pool.shutdown(wait=False)  # every submitted program is waited for by its case
        return planned

    def _trace(self, args: dict[str, Any]) -> tuple[Any, tuple[str, ...]] | None:
        """The case's program, lowered (not yet compiled), or None to run it op by op."""
        import jax

        static = tuple(k for k, v in args.items() if not isinstance(v, jax.Array))
        try:
            hash(tuple(args[k] for k in static))
        except TypeError:
            return None
        # a new function each case: a trace is never reused for an equal value of another type
        # (4 for 4.0)
        jitted = jax.jit(functools.partial(self.entry), static_argnames=static)
        saved = sys.stdout, sys.stderr
        printed = io.StringIO()
        sys.stdout = sys.stderr = printed
        try:
            traced = jitted.trace(**args)
        except BaseException:  # even sys.exit(): the real run meets it again
            self.op_by_op = True  # the real run says what is wrong, with the student's prints
            return None
        finally:
            sys.stdout, sys.stderr = saved
        if printed.tell():
            self.op_by_op = True
            return None
        if _ops(traced.jaxpr.jaxpr) > WHOLE_MAX_OPS:
            return None
        try:
            return traced.lower(), static
        except Exception:
            return None


class WholeOnceCompiling(WholePrograms):
    """In a fresh JAX process (no fork): op by op while the cases need no compilation (what the
    persistent cache holds loads fast that way), one program per case from the first case that
    compiled natively."""

    def __init__(self, entry: Callable[..., Any], inputs: list[dict[str, Any]]) -> None:
        from jax._src import compiler

        super().__init__(entry, inputs)
        self.compiles = 0
        compile_and_load = compiler.backend_compile_and_load

        def counting(*args: Any, **kwargs: Any) -> Any:
            self.compiles += 1
            return compile_and_load(*args, **kwargs)

        compiler.backend_compile_and_load = counting

    def whole_now(self) -> bool:
        """From the first case that compiled natively."""
        return self.compiles > 0
