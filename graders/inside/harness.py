"""Runs INSIDE the sandbox: warm up a framework, take one job, send outputs back as frames.

This file is executed as a script by the sandboxed interpreter; it must import nothing from the
project except `protocol`, `seccomp`, `job_limits`, `zygote`, `jax_child`, `whole_programs` and
`messages` (bound read-only next to it). It never sees reference code or expected values: only
the job's inputs arrive, and only plain arrays leave. The process that runs a job first makes
itself the whole job (job_limits.py).
"""

from __future__ import annotations

import gc
import linecache
import os
import sys
import types
from typing import Any

# No collections while the framework loads (from `protocol`'s NumPy on): they walked its objects
# again and again (150 ms of a JAX server's start, 250 of torch's); `_resume_collections` ends it.
gc.disable()
import protocol  # type: ignore[import-not-found]  # noqa: E402  # bound beside this file

JOB_FD, RESULT_FD = 3, 4
FILE_LEVEL = protocol.FILE_LEVEL_TEST
SLOTS = protocol.SLOTS  # result ids are case_index * SLOTS + slot
READY = b"R"
JAX_CACHE_DIR = protocol.SANDBOX_JAX_CACHE
FORKED_AFTER_JAX = False  # set in a JAX fork server that warmed up before forking its jobs


def _import_framework(framework: str, *, start_backend: bool = True) -> Any:
    """Import the framework; JAX's backend starts only with `start_backend` (it starts threads)."""
    import numpy as np

    if framework == "torch":
        import torch

        torch.set_num_threads(1)
        torch.zeros(2) + 1
    elif framework == "jax":
        import flax.linen  # noqa: F401
        import jax

        config: Any = jax.config
        # Computations run on the calling thread, so a child forked after warm-up can run them.
        config.update("jax_cpu_enable_async_dispatch", False)
        if os.path.isdir(JAX_CACHE_DIR):  # read-only; see graders/host/jax_cache.py
            config.update("jax_compilation_cache_dir", JAX_CACHE_DIR)
            config.update("jax_persistent_cache_min_entry_size_bytes", -1)
            config.update("jax_persistent_cache_min_compile_time_secs", 1e9)  # never write
            config.update("jax_persistent_cache_enable_xla_caches", "none")  # as jax_cache
    _resume_collections()
    if framework == "jax" and start_backend:
        _start_jax_backend()
    return np


def _resume_collections() -> None:
    """Framework loaded: set its objects aside (here and in forked jobs), then collect again."""
    gc.freeze()
    gc.enable()


def _start_jax_backend() -> None:
    import jax.numpy as jnp

    jnp.ones(2).block_until_ready()


def _to_framework(value: Any, framework: str) -> Any:
    import numpy as np

    if not isinstance(value, np.ndarray):
        return value
    if framework == "torch":
        import torch

        return torch.from_numpy(value.copy())
    if framework == "jax":
        import jax

        # not jnp.asarray: that compiles a program per new input shape (JAX's `stage`), 20 ms
        # each; device_put gives the same array (dtype, weak type, placement) without one
        return jax.device_put(value)
    return value.copy()


class ResultTooLarge(Exception):
    """The output is larger than the result channel's budget."""


def _to_numpy(value: Any) -> Any:
    """Convert whatever the student returned into a plain ndarray, here in the sandbox."""
    import numpy as np

    if type(value).__module__.startswith("torch"):
        value = value.detach().cpu()
        if str(value.dtype) == "torch.bfloat16":
            value = value.float()
        value = value.numpy()
    elif type(value).__module__.startswith(("jax", "jaxlib")):
        value = np.asarray(value.block_until_ready())
    size = np.asarray(value).nbytes  # before copying: a huge output must not be copied twice
    if size > protocol.RESULT_BYTES:
        raise ResultTooLarge(f"{size / 2**20:.0f} MB of data")
    array = np.array(value, copy=True)
    if type(array) is not np.ndarray:
        array = np.asarray(array).view(np.ndarray)
    if array.dtype == object:
        raise TypeError("the function returned a Python object, not an array of numbers")
    return np.ascontiguousarray(array)


def _short_traceback(exc: BaseException) -> str:
    # imported by main before any job: a job that took every byte of memory is still told why
    import messages  # type: ignore[import-not-found]  # bound beside this file

    text: str = messages.short_traceback(exc)
    return text


def _run_class(entry: Any, inputs: dict[str, Any], framework: str, send: Any) -> None:
    """Slot 1: trainable parameter count; slot 2: those parameters, flat; slot 0: forward(x).

    Before forward, a module with one trainable parameter of the table's size gets the case's
    `table` copied into it, so its behaviour is graded on values the grader chose.
    """
    import numpy as np

    module = entry(int(inputs["max_len"]), int(inputs["d_model"]))
    trainable = [p for p in module.parameters() if p.requires_grad]
    send(1, np.asarray([sum(int(p.numel()) for p in trainable)], dtype=np.int64))
    table = inputs.get("table")
    if isinstance(table, np.ndarray) and len(trainable) == 1 and trainable[0].numel() == table.size:
        import torch

        with torch.no_grad():
            trainable[0].copy_(torch.from_numpy(table.copy()).reshape(trainable[0].shape))
    flat = [_to_numpy(p).reshape(-1).astype(np.float32) for p in trainable]
    send(2, np.concatenate(flat) if flat else np.zeros(0, dtype=np.float32))
    send(0, _to_numpy(module(_to_framework(inputs["x"], framework))))


def run_job(job: Any, write: Any, stop: Any = None, call: Any = None) -> None:
    """Execute one job, writing one frame per output as soon as it exists.

    `stop()` true after a step: the attempt is abandoned (graders/jax_child.py runs it again).
    `call(entry, inputs)`: plans every case's run (whole_programs.WholePrograms after a reset).
    """
    framework = job.framework
    sent = 0

    def send(case_index: int, slot: int, array: Any) -> None:
        nonlocal sent
        write(protocol.encode_array(case_index * SLOTS + slot, array))
        sent += 1

    def fail(test: int, exc: BaseException) -> None:
        nonlocal sent
        if isinstance(exc, ResultTooLarge):
            write(protocol.encode_error(test, protocol.RESULT_TOO_LARGE, str(exc)))
        else:
            write(protocol.encode_error(test, type(exc).__name__, _short_traceback(exc)))
        sent += 1

    source = job.code or ""
    # Tracebacks can then quote the student's own lines (used to explain refused operations).
    linecache.cache["submission.py"] = (len(source), None, source.splitlines(True), "submission.py")
    try:
        code = compile(source, "submission.py", "exec", dont_inherit=True)
    except (MemoryError, RecursionError):
        message = (
            "your code is nested too deeply for Python to read it "
            "(too many brackets inside one another)"
        )
        write(protocol.encode_error(FILE_LEVEL, "TooNested", message))
        write(protocol.encode_end(1))
        return
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        text = getattr(exc, "msg", None) or str(exc)
        message = f"{text} (line {line})" if line else text
        write(protocol.encode_error(FILE_LEVEL, "SyntaxError", message))
        write(protocol.encode_end(1))
        return
    module = types.ModuleType("submission")
    module.__file__ = "submission.py"
    sys.modules["submission"] = module  # Flax modules (dataclasses) look their module up here
    namespace = module.__dict__
    try:
        exec(code, namespace)  # noqa: S102 - this is the untrusted code; we are in the sandbox
    except BaseException as exc:
        write(protocol.encode_error(FILE_LEVEL, "ImportError", _short_traceback(exc)))
        write(protocol.encode_end(1))
        return
    if stop is not None and stop():
        return
    entry = namespace.get(job.entry_name)
    if entry is None or not callable(entry):
        kind = "class" if job.entry_kind == "class" else "function"
        message = f"your code does not define a {kind} named {job.entry_name}"
        write(protocol.encode_error(FILE_LEVEL, "MissingEntry", message))
        write(protocol.encode_end(1))
        return
    planned = None
    if call is not None and job.entry_kind != "class":
        inputs = [{k: _to_framework(v, framework) for k, v in c.args.items()} for c in job.cases]
        planned = call(entry, inputs)
    for position, case in enumerate(job.cases):
        index = case.index
        try:
            if job.entry_kind == "class":
                _run_class(entry, case.args, framework, lambda s, a, i=index: send(i, s, a))
            elif planned is not None:
                send(index, 0, _to_numpy(planned.run(position)))
            else:
                args = {k: _to_framework(v, framework) for k, v in case.args.items()}
                send(index, 0, _to_numpy(entry(**args)))
        except BaseException as exc:
            fail(index * SLOTS, exc)
        if stop is not None and stop():
            return
    write(protocol.encode_end(sent))


WARMUP_MAX_BYTES = 16 * 1024 * 1024


def _read_exactly(fd: int, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            raise EOFError("the grader closed the job pipe during warm-up")
        data += chunk
    return bytes(data)


def _read_warmup() -> bytearray:
    """The grader's first frame on the job pipe: model solutions and test shapes (JSON), or b""."""
    size = int.from_bytes(_read_exactly(JOB_FD, 4), "big")
    if size > WARMUP_MAX_BYTES:
        raise ValueError(f"warm-up frame of {size} bytes is too large")
    return bytearray(_read_exactly(JOB_FD, size)) if size else bytearray()


def _warm_up(framework: str, raw: bytearray) -> None:
    """Run trusted model solutions on zero inputs of the test shapes so JAX compiles them now.

    The inputs are zeros, never the real (or hidden) test inputs, and everything is dropped
    before the job arrives (the bundle's bytes are zeroed in this process's copy).
    """
    import gc
    import json

    import numpy as np

    if framework != "jax" or not raw:
        raw[:] = bytes(len(raw))
        return
    bundle = json.loads(bytes(raw))
    raw[:] = bytes(len(raw))
    bundle = bundle if isinstance(bundle, list) else []
    while bundle:
        item = bundle.pop()
        warm_module = types.ModuleType("warmup")
        sys.modules["warmup"] = warm_module
        scope = warm_module.__dict__
        exec(compile(item["code"], "warmup.py", "exec"), scope)  # noqa: S102 - trusted solution
        func = scope[item["entry"]]
        for args in item["cases"]:
            inputs = {
                k: _to_framework(np.zeros(v["shape"], dtype=v["dtype"]), framework)
                if isinstance(v, dict)
                else v
                for k, v in args.items()
            }
            try:
                _to_numpy(func(**inputs))
            except Exception:  # noqa: S112 - warm-up is best effort
                continue
        scope.clear()
        del scope, func, warm_module, item
        sys.modules.pop("warmup", None)
    gc.collect()


def _take_one_job() -> None:
    """Read the job from fd 3, run it, write its frames to fd 4."""
    import job_limits  # type: ignore[import-not-found]  # bound beside this file; loaded by main

    result = os.fdopen(RESULT_FD, "wb", buffering=0)
    write = _writer(result)
    with os.fdopen(JOB_FD, "rb") as job_stream:
        job = protocol.read_job(job_stream)
    try:
        job_limits.enter_job(job)
    except Exception as exc:  # never run student code without its limits
        write(protocol.encode_error(FILE_LEVEL, protocol.GRADER_FAULT, f"{exc}"))
        write(protocol.encode_end(1))
        return
    if FORKED_AFTER_JAX:  # new compilations need a client of the child's own
        import jax_child  # type: ignore[import-not-found]  # bound beside this file

        if jax_child.run(run_job, job, write, may_reset=jax_child.NATIVE_COMPILES[0] == 0):
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(protocol.RAN_AFTER_RESET)  # every result is written; this only counts it
        return
    if job.framework == "jax":  # a fresh JAX: compiles freely, one program per case once it must
        import whole_programs  # type: ignore[import-not-found]  # bound beside this file

        whole_programs.cheap_compiles()  # after the warm-up: what it loaded keeps its settings
        run_job(job, write, call=whole_programs.WholeOnceCompiling)
        return
    run_job(job, write)


def _warm_jax_server(warmup: bytearray) -> None:
    import jax_child

    _import_framework("jax", start_backend=False)
    jax_child.watch_server()  # from here, a real compilation rules out resets
    _start_jax_backend()
    with jax_child.one_mlir_context_while_warming():
        _warm_up("jax", warmup)


def main() -> None:
    """Warm up, say ready, wait for one job, run it, exit (or serve forked jobs: zygote.py).

    JAX has two kinds of fork server. `fork`: warmed on its exercise, it forks each job after
    the backend started (fast; a job that needs a new compilation is run again elsewhere).
    `prewarm`: it stops before the backend starts, and each of its children starts it and warms
    up while no job waits for it (the safe place for any JAX job).
    """
    global FORKED_AFTER_JAX
    framework, *options = sys.argv[1:]
    import job_limits  # noqa: F401  # once here, not in every forked job
    import messages  # noqa: F401  # before any job (memory)
    import seccomp  # type: ignore[import-not-found]  # bound beside this file (see job_limits.py)

    seccomp.load_library()  # once here, not in every forked job (about 10 ms each)
    forks = "fork" in options or "prewarm" in options
    if forks:
        import zygote  # type: ignore[import-not-found]  # bound beside this file

        # Its low priority covers the framework's import and warm-up. NumPy has neither left
        # (`protocol` imported it), and a second change right after the first waited 100 ms.
        background = "background" in options and framework != "numpy"
        zygote.start_in_background(nobody_waits=background)
    prewarm = "prewarm" in options
    forks_warm_jax = framework == "jax" and "fork" in options
    warmup = _read_warmup()
    if forks_warm_jax:
        import jax_child

        jax_child.warm_up_in_the_background(lambda: _warm_jax_server(warmup))
    else:
        _import_framework(framework, start_backend=not prewarm)
    if not forks_warm_jax and not prewarm:
        _warm_up(framework, warmup)
    if forks:
        zygote.serve_in_foreground()  # before serve(): once not dumpable it cannot any more
    if prewarm:

        def prepare() -> None:
            _start_jax_backend()
            _warm_up(framework, warmup)

        zygote.serve(_take_one_job, prepare=prepare)
        os._exit(0)
    if "fork" in options:
        FORKED_AFTER_JAX = forks_warm_jax
        if forks_warm_jax:
            jax_child.forget_traces()
            jax_child.settle()
        zygote.serve(_take_one_job, threads_ok=FORKED_AFTER_JAX)
        os._exit(0)
    os.write(RESULT_FD, READY)
    _take_one_job()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _writer(stream: Any) -> Any:
    """Write whole frames even if the pipe takes them in pieces."""

    def write(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[stream.write(view) :]

    return write


if __name__ == "__main__":
    main()
