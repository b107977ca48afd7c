"""Reference runs of the lab: the platform's schemes trained in a trusted child (the exercise's
own reference.py in a sandbox), cached on disk.

The grader process never starts torch (it forks sandboxes), so each run is a child process
(`python -m graders.lab.experiment_reference FOLDER SCHEME`) that prints one JSON line. Results are
cached by a hash of everything that decides them (the lab's code, the exercise's settings and
reference, the torch version), so pages and the CLI never wait for training twice.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

import yaml

from graders import lifeline
from graders.lab.lab_scoring import lab_spec
from graders.versions import library_version

GRADERS = Path(__file__).resolve().parents[1]
REFERENCE = "reference"  # the exercise's own reference.py (its model solution)
TIMEOUT_S = 300
SEEDS = 3  # each reference scheme is trained this many times, seeds s, s+1, ... (s: the settings')
UNHASHED = ("goals", "references")  # they judge or list runs; they do not change one
PLATFORM = "/platform"  # where a sandboxed reference run finds the `graders` package


def content_hash(folder: Path, scheme: str) -> str:
    """Hash of the lab's code, the experiment settings, the scheme and (for it) reference.py."""
    digest = hashlib.sha256()
    for name in (
        "inside/experiment.py",
        "lab/lab_scoring.py",
        "lab/positions.py",
        "lab/experiment_reference.py",
    ):
        digest.update((GRADERS / name).read_bytes())
    meta = yaml.safe_load((folder / "exercise.yaml").read_text(encoding="utf-8"))
    settings = {k: v for k, v in meta["experiment"].items() if k not in UNHASHED}
    digest.update(json.dumps(settings, sort_keys=True).encode())
    digest.update(f"{scheme}\0{meta['entry']['name']}\0{library_version('torch')}".encode())
    if split_scheme(scheme)[0] == REFERENCE:
        digest.update((folder / "reference.py").read_bytes())
    return digest.hexdigest()[:20]


def schemes_of(folder: Path) -> list[str]:
    """The exercise's reference schemes, then its own reference solution."""
    meta = yaml.safe_load((folder / "exercise.yaml").read_text(encoding="utf-8"))
    return [*lab_spec(meta["experiment"]).references, REFERENCE]


def with_seed(scheme: str, seed: int) -> str:
    """'rope@offset=6' trained with seed 2 -> 'rope@offset=6,seed=2'."""
    name, _, tail = scheme.partition("@")
    return f"{name}@{','.join([*filter(None, tail.split(',')), f'seed={seed}'])}"


def seeded_runs(folder: Path, scheme: str) -> list[str]:
    """The runs a scheme's reference is made of: the settings' seed first (the run a student's
    own is trained like), then the next SEEDS - 1 seeds."""
    meta = yaml.safe_load((folder / "exercise.yaml").read_text(encoding="utf-8"))
    first = int(meta["experiment"].get("seed", 0))
    return [scheme, *(with_seed(scheme, first + k) for k in range(1, SEEDS))]


def seeded_names(folder: Path) -> list[tuple[str, str]]:
    """(scheme, run) for every run of every reference scheme, the order they are shown in."""
    return [(scheme, run) for scheme in schemes_of(folder) for run in seeded_runs(folder, scheme)]


def cached(folder: Path, scheme: str, cache_dir: Path) -> dict[str, Any] | None:
    """One scheme's cached result, or None; never trains (pages call this)."""
    path = cache_dir / f"{folder.name}--{scheme}--{content_hash(folder, scheme)}.json"
    try:
        found: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found


def load_or_run(folder: Path, scheme: str, cache_dir: Path | None) -> dict[str, Any]:
    """One scheme's result from the cache, else trained now (the exercise's own in a sandbox)."""
    path = None
    if cache_dir is not None:
        path = cache_dir / f"{folder.name}--{scheme}--{content_hash(folder, scheme)}.json"
        found = cached(folder, scheme, cache_dir)
        if found is not None:
            return found
    if split_scheme(scheme)[0] == REFERENCE:  # any seed of it: an editor's code
        stdout = _run_sandboxed(folder, scheme)
    else:  # the platform's own schemes: trusted code, with the exercise's settings as data
        proc = subprocess.run(
            [sys.executable, "-m", "graders.lab.experiment_reference", str(folder), scheme],
            capture_output=True,
            timeout=TIMEOUT_S,
            check=False,
            cwd=GRADERS.parent,
            env=lifeline.child_env(),
        )
        if proc.returncode != 0:
            tail = proc.stderr.decode("utf-8", "replace")[-2000:]
            raise RuntimeError(f"reference run {folder.name}/{scheme} failed: {tail}")
        stdout = proc.stdout.decode("utf-8")
    result: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".tmp")
        partial.write_text(json.dumps(result), encoding="utf-8")
        partial.replace(path)
    return result


def _run_sandboxed(folder: Path, scheme: str) -> str:
    """The exercise's own reference.py trained in a sandbox: an editor may have written it.

    It sees the platform's `graders` package and its own folder, read-only, and nothing else
    (no network, no other course, no app data or secrets); its JSON line comes back on stdout.
    """
    from graders.sandbox import SandboxLimits, sandbox_python, spawn

    argv = [sandbox_python(), "-s", "-B", "-m", "graders.lab.experiment_reference"]
    binds = [(str(GRADERS), f"{PLATFORM}/graders"), (str(folder), "/exercise")]
    limits = SandboxLimits(
        cpu_seconds=TIMEOUT_S,
        memory_mb=2048,
        max_processes=64,
        max_file_mb=16,
        max_open_files=256,
        output_bytes=1 << 20,
        tmpfs_mb=64,
    )
    env = {"PYTHONPATH": PLATFORM}
    proc = spawn([*argv, "/exercise", scheme], limits=limits, ro_binds=binds, env=env)
    try:
        try:
            status = proc.wait(timeout=TIMEOUT_S)
        except TimeoutError:
            proc.kill_tree()
            why = f"reference run {folder.name} took more than {TIMEOUT_S} s"
            raise RuntimeError(why) from None
        output, _ = proc.output()
    finally:
        proc.kill_tree()
        proc.close()
    text = output.decode("utf-8", "replace")
    if status.exit_code != 0:
        raise RuntimeError(f"reference run {folder.name}/{scheme} failed: {text[-2000:]}")
    return text


def split_scheme(scheme: str) -> tuple[str, dict[str, int]]:
    """'rope@offset=6' -> ('rope', {'offset': 6}): a scheme trained on a variant of the task."""
    name, _, tail = scheme.partition("@")
    overrides: dict[str, int] = {}
    for part in filter(None, tail.split(",")):
        key, _, value = part.partition("=")
        overrides[key] = int(value)
    return name, overrides


def _factory(folder: Path, scheme: str, entry_name: str) -> tuple[str | None, Any]:
    """(slot or None for the exercise's own, factory) of a scheme; trusted code only."""
    from graders.lab.positions import SCHEMES

    name = split_scheme(scheme)[0]
    if name != REFERENCE:
        return SCHEMES[name]
    # In the sandbox only (load_or_run): reference.py is an editor's content.
    path = folder / "reference.py"
    module = types.ModuleType(f"lab_reference_{folder.name.replace('-', '_')}")
    module.__file__ = str(path)
    sys.modules[module.__name__] = module  # dataclass-based classes look themselves up here
    source = path.read_text(encoding="utf-8")
    exec(compile(source, str(path), "exec"), module.__dict__)  # noqa: S102 - sandboxed content
    return None, getattr(module, entry_name)


def main() -> None:
    """Train one scheme with the exercise's settings and print its measurements as JSON."""
    lifeline.die_with_parent()
    from graders.inside.experiment import Config, LossNotFinite, run
    from graders.lab.lab_scoring import by_position, eval_sequences, right_by_position, score

    folder, scheme = Path(sys.argv[1]), sys.argv[2]
    meta = yaml.safe_load((folder / "exercise.yaml").read_text(encoding="utf-8"))
    overrides = split_scheme(scheme)[1]
    lab = lab_spec({**meta["experiment"], **overrides})
    slot, factory = _factory(folder, scheme, str(meta["entry"]["name"]))
    config = Config.from_mapping({**lab.config(), "slot": slot or lab.slot})
    started = time.process_time()
    result: dict[str, Any] = {"scheme": scheme, "train_length": lab.train_length, **overrides}
    result["seed"] = int(lab.settings.get("seed", 0))
    sequences = eval_sequences(lab)
    try:
        outcome = run(config, factory, sequences)
    except LossNotFinite as exc:
        result["nan_at_step"] = exc.step
    else:
        shares: dict[str, dict[str, float | None]] = {"all": {}, "trained": {}, "new": {}}
        rights = []
        for n, tokens in sequences.items():
            value = None if n in outcome.refused else score(lab, tokens, outcome.predicted[n])
            right = (
                None
                if n in outcome.refused
                else right_by_position(lab, tokens, outcome.predicted[n])
            )
            if right is not None:
                rights.append(right)
            for part, values in shares.items():
                got = None if value is None else getattr(value, part)
                values[str(n)] = None if got is None else round(got, 4)
        result["accuracy_by_length"] = shares["all"]
        result["trained_by_length"] = shares["trained"]
        result["new_by_length"] = shares["new"]
        result["accuracy_by_position"] = by_position(lab, rights)
        result["refused"] = {str(n): str(exc) for n, exc in outcome.refused.items()}
        result["loss"] = [round(v, 5) for v in outcome.losses]
    result["cpu_seconds"] = round(time.process_time() - started, 2)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
