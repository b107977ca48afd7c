"""JAX's persistent compilation cache, filled per exercise in a sandbox, read-only to submissions.

Compiling is most of the cost of a JAX job (ten Flax test shapes: about 5 s cold, 0.9 s from
the cache). So before JAX interpreters are offered jobs, a sandbox (never the grader itself: it
forks sandboxes, and JAX must not have run in a process that forks) runs every model solution on
zero inputs of every test shape with the cache on. The model solutions and mistakes are content
an editor may write in a browser (issue 50), so the filler is sandboxed like them: it sees the
platform's `graders` package and writes only its own exercise's part of the cache, bound at the
path the exercise's sandboxes read it from; it sees no other course, part or app data. Sandboxes
that take jobs bind the part read-only and never write to it, so no submission can plant
compiled code for the next.

Each exercise has a part of its own, `CACHE_DIR/<slug>/` (`exercise_part`), filled with only its
model solution's and declared mistakes' programs, and a `jax:<slug>` sandbox binds that part
alone (graders/host/interpreter.py); a plain `jax` server, which takes any exercise's job,
binds none. Programs carry no source locations: the sandbox's settings (`sandbox_env`, from
graders.sandbox.base_env) set JAX_TRACEBACK_IN_LOCATIONS_LIMIT=0 for the filler as for every
sandbox, so neither a compiled program nor a cache entry names a file, a line or a path (before,
2,126 of 2,334 entries named `warmup.py` and 1,570 the checkout's absolute path, issue 48).

The child runs with the sandbox's XLA settings (`sandbox_env`): the cache key covers the
compiler flags, so a cache filled with other flags is never hit. Each exercise's part is stamped
with a hash of its warm-up bundle, the library versions and those settings, so a fill that has
nothing new to do (after `make run`'s set-up, or on a restart) costs no JAX start at all. The
child runs at the lowest priority: it must not slow students' NumPy and torch jobs.

In the sandbox it runs as `python -m graders.host.jax_cache` and reads its bundle on fd 3.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from graders import protocol
from graders.versions import library_version

SANDBOX_CACHE_DIR = protocol.SANDBOX_JAX_CACHE
FILL_TIMEOUT_S = 600
FILL_AT_ONCE = 4  # sandboxes filling parts side by side (each up to 4 GB)
PLATFORM = "/platform"  # where the filler's sandbox finds the `graders` package
GRADERS = Path(__file__).resolve().parents[1]
LIBRARIES = ("jax", "jaxlib", "flax", "numpy")
CACHE_FORMAT = 4  # bump when what goes into the keys changes (4: a part lists what warms up)


def configure(jax: Any, cache_dir: str, *, writable: bool) -> None:
    """Point JAX at the cache; a read-only user never writes (its bar is unreachable)."""
    jax.config.update("jax_compilation_cache_dir", cache_dir)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0 if writable else 1e9)
    # XLA's own side caches would put the cache's path into every key (through the compile
    # options), and the sandbox sees the cache at another path than the trusted filler.
    jax.config.update("jax_persistent_cache_enable_xla_caches", "none")


def stamp(bundle: list[dict[str, Any]], env: dict[str, str]) -> str:
    """What a filled part of the cache depends on: the bundle, library versions, XLA settings."""
    versions = {name: library_version(name) for name in LIBRARIES}
    settings = {k: v for k, v in sorted(env.items()) if k.startswith(("XLA_", "JAX_"))}
    text = json.dumps([CACHE_FORMAT, bundle, versions, settings], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def exercise_part(cache_dir: str | Path, slug: str) -> Path:
    """The folder of the cache that holds one exercise's programs (and only those)."""
    if not slug or "/" in slug or slug.startswith("."):
        raise ValueError(f"not an exercise slug: {slug!r}")
    return Path(cache_dir) / slug


def _stamp_path(cache_dir: Path, slug: str) -> Path:
    return exercise_part(cache_dir, slug) / ".filled"


def _needed_path(cache_dir: Path, slug: str) -> Path:
    return exercise_part(cache_dir, slug) / ".needed"


def warm_bundle(
    bundle: list[dict[str, Any]], cache_dir: str | None, slug: str, env: dict[str, str]
) -> list[dict[str, Any]]:
    """The part of `bundle` a server's warm-up must run: the cases that compiled a program when
    the cache was filled for this very bundle; the whole bundle if that is not known.

    Why: a case whose programs an earlier case already compiled loads nothing, yet costs its
    dispatch, op by op; the Flax exercise warmed 40 cases where 17 load a program (issue 54)."""
    if not cache_dir:
        return bundle
    try:
        filled, needed = json.loads(_needed_path(Path(cache_dir), slug).read_text("utf-8"))
    except (OSError, ValueError, TypeError):
        return bundle
    if filled != stamp(bundle, env) or not _indices_of(needed, bundle):
        return bundle
    kept = [
        {**item, "cases": [item["cases"][i] for i in sorted(set(cases))]}
        for item, cases in zip(bundle, needed, strict=True)
    ]
    return [item for item in kept if item["cases"]]


def _indices_of(needed: Any, bundle: list[dict[str, Any]]) -> bool:
    """`needed` lists, per item of `bundle`, indices of its cases."""
    return (
        isinstance(needed, list)
        and len(needed) == len(bundle)
        and all(
            isinstance(cases, list)
            and all(type(i) is int and 0 <= i < len(item["cases"]) for i in cases)
            for item, cases in zip(bundle, needed, strict=True)
        )
    )


def stale(
    bundles: dict[str, list[dict[str, Any]]], cache_dir: Path, env: dict[str, str]
) -> list[str]:
    """The exercises whose part of the cache is missing or was filled for other code."""
    todo = []
    for slug, bundle in bundles.items():
        path = _stamp_path(cache_dir, slug)
        if not path.is_file() or path.read_text(encoding="utf-8").strip() != stamp(bundle, env):
            todo.append(slug)
    return todo


def current(
    exercises_dir: Path,
    cache_dir: Path,
    env: dict[str, str],
    bundles: dict[str, list[dict[str, Any]]] | None = None,
) -> bool:
    """Every exercise's part filled for its code (a restart): `fill` would do nothing.

    `bundles`: the warm-up bundles of `exercises_dir` when the caller has them (the grader
    builds them at its start; building them again cost 1 s of a restart's crowded core)."""
    from graders.host.warmup import warmup_bundles

    try:
        if bundles is None:
            bundles = warmup_bundles(exercises_dir)
        return not stale(bundles, cache_dir, env)
    except (OSError, ValueError):  # `fill` will say what is wrong
        return False


def fill(
    exercises_dir: Path, cache_dir: Path, env: dict[str, str], slugs: list[str] | None = None
) -> float:
    """Fill the cache for `slugs` (default all) in sandboxes; returns the seconds it took.

    `env` holds the sandbox's settings (graders.sandbox.base_env), so the keys match.
    """
    from graders.host.warmup import warmup_bundles

    started = time.perf_counter()
    bundles = warmup_bundles(exercises_dir)
    if slugs is not None:
        bundles = {slug: bundles[slug] for slug in slugs if slug in bundles}
    cache_dir.mkdir(parents=True, exist_ok=True)
    cache_dir.chmod(0o755)
    todo = stale(bundles, cache_dir, env)
    if not todo:
        return 0.0

    def one(slug: str) -> None:  # one sandbox per part: a part once filled stays filled
        needed = _fill_part(cache_dir, slug, bundles[slug], env)
        filled = stamp(bundles[slug], env)
        _write_readable(_needed_path(cache_dir, slug), json.dumps([filled, needed]))
        _write_readable(_stamp_path(cache_dir, slug), filled)

    # A filler compiles on about one core: one per core (at most FILL_AT_ONCE), each niced.
    at_once = max(1, min(len(todo), os.cpu_count() or 1, FILL_AT_ONCE))
    with ThreadPoolExecutor(max_workers=at_once, thread_name_prefix="jax-fill") as pool:
        for done in [pool.submit(one, slug) for slug in todo]:
            done.result()  # the first part that failed says why
    return time.perf_counter() - started


def _write_readable(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o644)


def _fill_part(
    cache_dir: Path, slug: str, bundle: list[dict[str, Any]], env: dict[str, str]
) -> Any:
    """Fill one exercise's part in a sandbox that may write that part only; its files then
    readable by every sandbox's uid. Returns what the filler said each item's cases need."""
    from graders.sandbox import SandboxLimits, sandbox_python, spawn

    part = exercise_part(cache_dir, slug)
    part.mkdir(parents=True, exist_ok=True)
    part.chmod(0o777)  # as root the sandbox runs under a uid of its own, which must write here
    settings = {k: v for k, v in env.items() if k.startswith(("XLA_", "JAX_"))}
    limits = SandboxLimits(
        cpu_seconds=FILL_TIMEOUT_S,
        memory_mb=4096,
        max_processes=128,
        max_file_mb=512,
        max_open_files=256,
        output_bytes=64 * 1024,
        tmpfs_mb=64,
    )
    proc = spawn(
        [sandbox_python(), "-s", "-B", "-m", "graders.host.jax_cache"],
        limits=limits,
        ro_binds=[(str(GRADERS), f"{PLATFORM}/graders")],
        rw_binds=[(str(part), SANDBOX_CACHE_DIR)],
        env={**settings, "PYTHONPATH": PLATFORM},
    )
    try:
        try:
            _write_all(proc.job_fd, json.dumps(bundle).encode("utf-8"))
        except OSError:
            pass  # it died early: its status says why
        finally:
            os.close(proc.job_fd)
        try:
            status = proc.wait(timeout=FILL_TIMEOUT_S)
        except TimeoutError:
            status = None
        output, _ = proc.output()
    finally:
        proc.kill_tree()
        proc.close()
        part.chmod(0o755)
        for path in part.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)
    if status is None or status.exit_code != 0:
        tail = output.decode("utf-8", "replace")[-2000:]
        raise RuntimeError(f"filling the JAX compilation cache for {slug} failed: {tail}")
    lines = output.decode("utf-8", "replace").strip().splitlines()
    try:
        return json.loads(lines[-1]).get("needed")
    except (IndexError, ValueError, AttributeError):
        return None  # checked where it is read: anything else warms up on every case


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _run_bundle(bundle: list[dict[str, Any]]) -> tuple[int, list[list[int]]]:
    """Same calls as the harness's warm-up, so the compiled computations are the same ones.

    Returns the cases run and, per item, the cases that compiled a program no earlier case had:
    the only ones a server's warm-up needs to run (`warm_bundle`)."""
    import jax.numpy as jnp
    import numpy as np
    from jax._src import compiler

    compiled, needed = 0, list[list[int]]()
    original = compiler.compile_or_get_cached
    new: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        new.append(1)  # called only when no program in memory fits
        return original(*args, **kwargs)

    compiler.compile_or_get_cached = counted
    for item in bundle:
        module = types.ModuleType("warmup")
        sys.modules["warmup"] = module
        exec(compile(item["code"], "warmup.py", "exec"), module.__dict__)  # noqa: S102 - trusted
        func = module.__dict__[item["entry"]]
        needed.append([])
        for index, args in enumerate(item["cases"]):
            inputs = {
                k: jnp.asarray(np.zeros(v["shape"], dtype=v["dtype"])) if isinstance(v, dict) else v
                for k, v in args.items()
            }
            new.clear()  # the inputs' own programs are not the warm-up's (it uses device_put)
            try:
                np.asarray(func(**inputs))
                compiled += 1
            except Exception as exc:  # a model solution that fails is validate's business
                print(f"warm-up of {item['entry']} failed: {exc}", file=sys.stderr)
            if new:
                needed[-1].append(index)
    compiler.compile_or_get_cached = original
    return compiled, needed


def main() -> None:
    """In the filler's sandbox: the bundle from fd 3, its programs into the bound part."""
    os.nice(19)  # background work: students' jobs come first
    with os.fdopen(3, "rb") as stream:
        bundle = json.loads(stream.read().decode("utf-8"))
    import jax
    import jax.numpy as jnp

    configure(jax, SANDBOX_CACHE_DIR, writable=True)
    jnp.ones(2).block_until_ready()  # the harness's own start-up computation
    cases, needed = _run_bundle(bundle)
    print(json.dumps({"cases": cases, "needed": needed}))


if __name__ == "__main__":
    main()
