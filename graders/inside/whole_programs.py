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

# Which is cheaper, measured on a 2-core machine: one program costs about 25 ms plus 1.5 ms per
# operation (nested ones counted); op by op, each distinct operation (its kind and input types)
# is one compilation of about 20 ms, a nested jitted function one program. So a program of many
# kinds of operations (RoPE's 49 operations: 0.8 s as programs, 7.2 s op by op over 16 cases)
# is compiled whole, and a Python loop unrolled into many copies of a few is not.
WHOLE_MS = 25.0
WHOLE_MS_PER_OP = 1.5
OP_MS = 20.0
# Random numbers (Flax's initialisers) lower to large programs: compiled into every case's own
# program they cost 0.25 s a case, while op by op they are compiled once per shape (and the
# warmed server's are hits).
OP_BY_OP_PRIMITIVES = frozenset({"threefry2x32", "erf_inv"})


# How a job's own process compiles what the persistent cache does not hold (the student's new
# programs): XLA's backend optimisations off (what JAX's `jax_disable_most_optimizations` sets),
# no fusion emitters, one code-generation unit. Measured on a 2-core machine over corpus files
# (docs/jax-fork-reset.md, "Cheaper compilations"): a gather program 29 -> 11 ms, RoPE's 48-59 ->
# 16-20 ms; results equal, or within float32 rounding (a few units in the last place) where sines
# are involved, far inside every exercise's tolerance. The code runs a little slower, which
# tests of a few kilobytes never notice.
CHEAP_COMPILE: dict[str, bool | int] = {
    "xla_backend_optimization_level": 0,
    "xla_llvm_disable_expensive_passes": True,
    "xla_cpu_use_fusion_emitters": False,
    "xla_cpu_parallel_codegen_split_count": 1,
}
UNKNOWN_OPTION = "No such compile option"  # what XLA says of a setting it does not have


def cheap_compiles() -> None:
    """From here on, this process compiles what the persistent cache cannot serve the cheap way.

    Only real compilations change: the cache is still looked up under the usual settings, so
    what the warm-up filled loads as before.
    """
    from jax._src import compiler

    compile_and_load = compiler.backend_compile_and_load
    known = [True]  # False once this XLA has refused a setting's name (another jaxlib)

    def cheaper(backend: Any, module: Any, devices: Any, options: Any, callbacks: Any) -> Any:
        usual = list(options.env_option_overrides)
        if known[0]:
            options.env_option_overrides = [*usual, *CHEAP_COMPILE.items()]
            try:
                return compile_and_load(backend, module, devices, options, callbacks)
            except Exception as exc:  # a student's program is never failed for our settings
                if UNKNOWN_OPTION not in str(exc):
                    raise
                known[0] = False
                options.env_option_overrides = usual
        return compile_and_load(backend, module, devices, options, callbacks)

    compiler.backend_compile_and_load = cheaper


class _Random(Exception):
    """The program draws random numbers."""


def _count(jaxpr: Any, kinds: set[tuple[str, tuple[str, ...]]]) -> int:
    """Operations, nested ones counted; the top level's distinct kinds are added to `kinds`."""
    from jax._src import core

    total = 0
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name.startswith("random_") or name in OP_BY_OP_PRIMITIVES:
            raise _Random(name)
        kinds.add((name, tuple(str(getattr(v, "aval", v)) for v in eqn.invars)))
        total += 1 + sum(_count(sub, set()) for sub in core.jaxprs_in_params(eqn.params))
    return total


def cheaper_whole(jaxpr: Any) -> bool:
    """Whether this case compiles faster as one program than op by op."""
    kinds: set[tuple[str, tuple[str, ...]]] = set()
    try:
        ops = _count(jaxpr, kinds)
    except _Random:
        return False
    return WHOLE_MS + WHOLE_MS_PER_OP * ops <= OP_MS * len(kinds)


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
        # With non-array inputs, a new function each case: a trace is never reused for an equal
        # value of another type (4 for 4.0). Without, the entry itself: cases of the same shapes
        # share one program instead of compiling it again.
        program = functools.partial(self.entry) if static else self.entry
        jitted = jax.jit(program, static_argnames=static)
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
        if not cheaper_whole(traced.jaxpr.jaxpr):
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
