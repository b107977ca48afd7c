"""Runs INSIDE the sandbox: train the lab's model with the student's position module, report back.

Executed as a script by a sandboxed interpreter of its own (never a pool process), beside `harness`,
`protocol`, `seccomp`, `job_limits` and `experiment`, which are bound read-only next to it. It takes
the job's limits and seccomp filter exactly as an ordinary job does (job_limits.enter_job) before
any student code runs. Frames: PROGRESS_ID carries [step, steps, loss] while training;
PREDICTED_ID+i the model's answers on the grader's sequences of length i (the grader scores them: no
accuracy is measured here); LOSSES_ID the loss curve; REFUSED_ID+i the error that refused length i;
PICTURE_ID what the module learned about position (experiment.position_picture); CHECK_ID+i a fresh
module's output on the grader's probe i, sent before training (judged by graders/lab/lab_check.py);
an ERROR frame on TRAINING_ID when training itself failed.
"""

from __future__ import annotations

import os
import sys
import types
from typing import Any

import protocol  # type: ignore[import-not-found]  # bound beside this file in the sandbox

PROGRESS_ID, CHECK_ID = protocol.PROGRESS_ID, protocol.CHECK_ID  # graders/protocol.py
TRAINING_ID, LOSSES_ID, PICTURE_ID = protocol.TRAINING_ID, protocol.LOSSES_ID, protocol.PICTURE_ID
REFUSED_ID, PREDICTED_ID = protocol.REFUSED_ID, protocol.PREDICTED_ID
SLOTS = protocol.LAB_SLOTS  # the job's `slot` scalar indexes this


def config_from_job(job: Any) -> dict[str, Any]:
    """The experiment settings carried as scalars (and the lengths array) of the job's case."""
    args = dict(job.cases[0].args)
    args["slot"] = SLOTS[int(args["slot"])]
    args["lengths"] = [int(n) for n in args["lengths"]]
    return args


def sequences_from_job(job: Any, lengths: list[int]) -> dict[int, Any]:
    """The grader's evaluation tokens, one array per length (job args eval_0, eval_1, ...)."""
    args = job.cases[0].args
    return {length: args[f"eval_{index}"] for index, length in enumerate(lengths)}


def _load_entry(job: Any, write: Any, harness: Any) -> Any:
    """Compile and run the submission; its entry, or None after writing the file-level error."""
    source = job.code or ""
    harness.linecache.cache["submission.py"] = (
        len(source),
        None,
        source.splitlines(True),
        "submission.py",
    )
    level = protocol.FILE_LEVEL_TEST
    try:
        code = compile(source, "submission.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        text = getattr(exc, "msg", None) or str(exc)
        write(
            protocol.encode_error(level, "SyntaxError", f"{text} (line {line})" if line else text)
        )
        return None
    except (MemoryError, RecursionError):
        write(protocol.encode_error(level, "TooNested", "your code is nested too deeply"))
        return None
    module = types.ModuleType("submission")
    module.__file__ = "submission.py"
    sys.modules["submission"] = module
    try:
        exec(code, module.__dict__)  # noqa: S102 - the untrusted code; we are in the sandbox
    except BaseException as exc:
        write(protocol.encode_error(level, "ImportError", harness._short_traceback(exc)))
        return None
    entry = module.__dict__.get(job.entry_name)
    if entry is None or not callable(entry):
        message = f"your code does not define a class named {job.entry_name}"
        write(protocol.encode_error(level, "MissingEntry", message))
        return None
    return entry


def check_module(config: Any, entry: Any, job: Any, send: Any, harness: Any) -> None:
    """Call fresh instances of the module on the grader's probes; send outputs, never verdicts.

    Independent of the trained model: each probe gets a new, untrained instance.

    Probe i is the job's check_i_a (x, absolute slot) or check_i_a, check_i_b (q, k, relative).
    """
    import numpy as np
    import torch

    args = job.cases[0].args
    index = 0
    while f"check_{index}_a" in args:
        first, second = args[f"check_{index}_a"], args.get(f"check_{index}_b")
        try:
            torch.manual_seed(config.seed)
            inputs = [torch.as_tensor(a) for a in (first, second) if a is not None]
            if second is None:
                module = entry(config.train_length, config.d_model)
            else:
                module = entry(config.heads, config.d_model // config.heads, config.train_length)
            with torch.no_grad():
                out = module(*inputs)
            found = np.asarray(out.detach().to(torch.float32).numpy(), dtype=np.float32)
            send(protocol.encode_array(CHECK_ID + index, found))
        except MemoryError:
            raise  # out of memory is the run's failure, reported as training's would be
        except Exception as exc:
            text = harness._short_traceback(exc)
            send(protocol.encode_error(CHECK_ID + index, type(exc).__name__, text))
        index += 1


def run_experiment(job: Any, write: Any, harness: Any) -> int:
    """Train and measure; returns how many frames were written (for the END frame)."""
    import experiment  # type: ignore[import-not-found]  # bound beside this file
    import numpy as np

    sent = 0

    def send(frame: bytes) -> None:
        nonlocal sent
        write(frame)
        sent += 1

    entry = _load_entry(job, send, harness)
    if entry is None:
        return sent
    raw = config_from_job(job)
    config = experiment.Config.from_mapping(raw)
    sequences = sequences_from_job(job, raw["lengths"])

    def progress(step: int, steps: int, loss: float) -> None:
        write(protocol.encode_array(PROGRESS_ID, np.array([step, steps, loss], dtype=np.float64)))

    try:
        outcome = experiment.run(config, entry, sequences, progress)
        # after training, so a module that breaks the run's limits breaks them as training does
        check_module(config, entry, job, send, harness)
    except experiment.LossNotFinite as exc:
        send(protocol.encode_error(TRAINING_ID, "LossNotFinite", str(exc.step)))
        return sent
    except BaseException as exc:
        send(protocol.encode_error(TRAINING_ID, type(exc).__name__, harness._short_traceback(exc)))
        return sent
    send(protocol.encode_array(LOSSES_ID, np.array(outcome.losses, dtype=np.float64)))
    if outcome.picture is not None:
        send(protocol.encode_array(PICTURE_ID, np.asarray(outcome.picture, dtype=np.float64)))
    for index, length in enumerate(raw["lengths"]):
        refusal = outcome.refused.get(length)
        if refusal is not None:
            name, text = type(refusal).__name__, harness._short_traceback(refusal)
            send(protocol.encode_error(REFUSED_ID + index, name, text))
        else:
            send(protocol.encode_array(PREDICTED_ID + index, outcome.predicted[length]))
    return sent


def main() -> None:
    """Import torch, say ready, take the one job within its limits, run it, exit."""
    import harness  # type: ignore[import-not-found]  # bound beside this file
    import job_limits  # type: ignore[import-not-found]
    import messages  # type: ignore[import-not-found]  # noqa: F401  # before the job (harness.py)
    import seccomp  # type: ignore[import-not-found]

    seccomp.load_library()
    harness._import_framework("torch")
    import experiment  # noqa: F401  # imported before the job's limits, like torch

    os.write(harness.RESULT_FD, harness.READY)
    write = harness._writer(os.fdopen(harness.RESULT_FD, "wb", buffering=0))
    with os.fdopen(harness.JOB_FD, "rb") as stream:
        job = protocol.read_job(stream)
    try:
        job_limits.enter_job(job)
    except Exception as exc:  # never run student code without its limits
        write(protocol.encode_error(protocol.FILE_LEVEL_TEST, protocol.GRADER_FAULT, f"{exc}"))
        write(protocol.encode_end(1))
        os._exit(0)
    sent = run_experiment(job, write, harness)
    write(protocol.encode_end(sent))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
