"""graders/inside/whole_programs.py, outside the sandbox: after a reset, a case is
compiled as one program where that is cheaper, and runs op by op where one program would change
what the student sees (prints, values used as Python numbers) or cost more (random numbers,
unrolled loops)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

GRADERS = Path(__file__).resolve().parents[2] / "graders"
SCRIPT = r"""
import json, sys
sys.path[:0] = [sys.argv[1] + "/inside", sys.argv[1]]
import numpy as np
import jax, jax.numpy as jnp
jax.config.update("jax_cpu_enable_async_dispatch", False)
from jax._src import compiler
import whole_programs

compiles = [0]
real = compiler.backend_compile_and_load
def counted(*args, **kwargs):
    compiles[0] += 1
    return real(*args, **kwargs)
compiler.backend_compile_and_load = counted

def gather(positions, table):
    return table[positions.astype(jnp.int32)] * 2.0

def python_number(positions, table):
    return table[: int(positions.max()) + 1]

def printing(positions, table):
    print("rows", table.shape[0])
    return table[positions.astype(jnp.int32)]

def random_rows(positions, table):
    return table + jax.random.normal(jax.random.PRNGKey(0), table.shape)

def loop(positions, table):
    rows = [table[i] for i in range(table.shape[0])]
    return jnp.stack(rows) + 0.0

def needs_int(n, table):
    return jnp.zeros((n, table.shape[1]))

cases = [
    {"positions": jax.device_put(np.array([[0, 3], [1, 2]], np.float32)),
     "table": jax.device_put(np.arange(32, dtype=np.float32).reshape(8, 4))},
    {"positions": jax.device_put(np.array([[5, 1, 0]], np.float32)),
     "table": jax.device_put(np.arange(18, dtype=np.float32).reshape(6, 3))},
    {"positions": jax.device_put(np.array([[60], [2]], np.float32)),
     "table": jax.device_put(np.arange(256, dtype=np.float32).reshape(64, 4))},
]
out = {}
for name in ("gather", "python_number", "printing", "random_rows", "loop"):
    entry = globals()[name]
    chosen = cases[2:] if name == "loop" else cases  # 64 rows: a loop of 64 steps unrolled
    compiles[0] = 0
    whole = whole_programs.WholePrograms(entry, chosen)
    got = [np.asarray(whole.run(i)) for i in range(len(chosen))]
    whole_compiles = compiles[0]
    jax.clear_caches()
    compiles[0] = 0
    want = [np.asarray(entry(**case)) for case in chosen]
    out[name] = {
        "same": all(g.shape == w.shape and np.allclose(g, w) for g, w in zip(got, want)),
        "whole": whole_compiles,
        "op_by_op": compiles[0],
    }
    jax.clear_caches()
table = cases[0]["table"]
whole = whole_programs.WholePrograms(
    needs_int, [{"n": 2, "table": table}, {"n": 2.0, "table": table}]
)
errors = []
for i in range(2):  # equal values of another type: never served the other's program
    try:
        errors.append(str(whole.run(i).shape))
    except TypeError:
        errors.append("TypeError")
out["needs_int"] = errors

def leaves(positions, table):
    sys.exit(3)

whole = whole_programs.WholePrograms(leaves, cases)
try:  # the trace met sys.exit: op by op, where the real call meets it again (run_job reports it)
    whole.run(0)
    out["leaves"] = "returned"
except SystemExit as exc:
    out["leaves"] = f"SystemExit {exc.code} op_by_op={whole.op_by_op}"

# A fresh JAX process: op by op until a case compiles, then one program per case.
jax.clear_caches()
compiles[0] = 0
np.asarray(gather(**cases[0]))
first_case = compiles[0]
jax.clear_caches()
compiles[0] = 0
once = whole_programs.WholeOnceCompiling(gather, cases)
got = [np.asarray(once.run(i)) for i in range(len(cases))]
out["once"] = {"compiles": compiles[0], "first_case": first_case}
for case in cases:  # every case's operations compiled: nothing to compile, so op by op
    gather(**case)
compiles[0] = 0
once = whole_programs.WholeOnceCompiling(gather, cases)
[np.asarray(once.run(i)) for i in range(len(cases))]
out["once_compiled"] = compiles[0]
print(json.dumps(out))
"""


def _run(script: str, *args: str) -> list[str]:
    """The script's printed lines, in a fresh process (its compilations are its own)."""
    env = {"JAX_PLATFORMS": "cpu", "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false"}
    proc = subprocess.run(
        [sys.executable, "-c", script, str(GRADERS), *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.splitlines()


@pytest.fixture(scope="module")
def got() -> dict:
    """One run of the script for the module."""
    lines = _run(SCRIPT)
    return {"printed": lines[:-1], **json.loads(lines[-1])}


def test_cases_compile_as_one_program_or_op_by_op_with_the_same_results(got: dict) -> None:
    for name in ("gather", "python_number", "printing", "random_rows", "loop"):
        assert got[name]["same"], (name, got)
    # one program per case (three shapes), against several operations per case op by op
    assert got["gather"]["whole"] == 3 and got["gather"]["op_by_op"] >= 9, got
    # values used as Python numbers, prints, random numbers, a long unrolled loop: op by op
    for name in ("python_number", "printing", "random_rows", "loop"):
        assert got[name]["whole"] == got[name]["op_by_op"], (name, got)
    # the student's prints appear once per call, with values, never a tracer's placeholder
    assert got["printed"] == ["rows 8", "rows 6", "rows 64"] * 2, got["printed"]
    assert got["needs_int"] == ["(2, 4)", "TypeError"], got
    assert got["leaves"] == "SystemExit 3 op_by_op=True", got


def test_a_fresh_jax_goes_op_by_op_until_a_case_compiles_then_one_program_per_case(
    got: dict,
) -> None:
    # the first case op by op (its several operations), then one program for each of the others
    assert got["once"]["first_case"] >= 3, got
    assert got["once"]["compiles"] == got["once"]["first_case"] + 2, got
    # nothing to compile (as when the persistent cache holds every operation): op by op throughout
    assert got["once_compiled"] == 0, got


CHEAP_SCRIPT = r"""
import json, sys
sys.path[:0] = [sys.argv[1] + "/inside", sys.argv[1]]
import numpy as np
import jax, jax.numpy as jnp
jax.config.update("jax_cpu_enable_async_dispatch", False)
if sys.argv[3] != "plain":  # plain: no persistent cache at all
    jax.config.update("jax_compilation_cache_dir", sys.argv[2])
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    never = 0 if sys.argv[3] == "fill" else 1e9  # only the filler writes
    jax.config.update("jax_persistent_cache_min_compile_time_secs", never)
    jax.config.update("jax_persistent_cache_enable_xla_caches", "none")
from jax._src import compiler
import whole_programs

seen = []  # (module name, the overrides XLA was given) of every real compilation
real = compiler.backend_compile_and_load
def recording(backend, module, devices, options, callbacks):
    seen.append((str(module.operation.attributes["sym_name"]), dict(options.env_option_overrides)))
    return real(backend, module, devices, options, callbacks)
compiler.backend_compile_and_load = recording

def cached(x):
    return jnp.sin(x) * 3.0 + jnp.cumsum(x, axis=1)

def new(x):
    return jnp.cos(x) @ x.T - jnp.sort(x @ x.T, axis=0)[::-1]

x = jax.device_put(np.linspace(-3, 3, 24, dtype=np.float32).reshape(4, 6))
if sys.argv[3] == "fill":
    np.asarray(jax.jit(cached)(x))
    print("{}")
elif sys.argv[3] == "plain":
    print(json.dumps({"new": np.asarray(jax.jit(new)(x)).tolist()}))
else:
    if sys.argv[3] == "unknown":  # another jaxlib, without one of the settings
        whole_programs.CHEAP_COMPILE["xla_cpu_no_such_setting"] = True
    whole_programs.cheap_compiles()
    a = np.asarray(jax.jit(cached)(x))
    b = np.asarray(jax.jit(new)(x))
    print(json.dumps({"seen": seen, "new": b.tolist(), "cheap": whole_programs.CHEAP_COMPILE}))
"""


def test_a_job_compiles_the_cheap_way_what_the_persistent_cache_does_not_hold(
    tmp_path: Path,
) -> None:
    def run(mode: str) -> dict:
        return json.loads(_run(CHEAP_SCRIPT, str(tmp_path), mode)[-1])

    run("fill")  # the trusted filler's way: `cached` is in the cache, `new` is not
    usual = run("plain")  # `new` compiled with the usual settings
    got = run("job")
    # the cached program still loads (its key is the usual one): only `new` was compiled, and
    # XLA took every cheap setting (an unknown name would have failed the compilation)
    assert [name for name, _ in got["seen"]] == ['"jit_new"'], got["seen"]
    overrides = got["seen"][0][1]
    assert got["cheap"] and {k: overrides.get(k) for k in got["cheap"]} == got["cheap"], overrides
    # the same answer as the usual settings give, within float32 rounding
    assert np.allclose(got["new"], usual["new"], rtol=1e-6, atol=1e-5)


def test_an_xla_without_one_of_the_cheap_settings_compiles_the_usual_way(tmp_path: Path) -> None:
    # a student's program must never fail because this XLA does not know one of our settings
    _run(CHEAP_SCRIPT, str(tmp_path), "fill")
    usual = json.loads(_run(CHEAP_SCRIPT, str(tmp_path), "plain")[-1])
    got = json.loads(_run(CHEAP_SCRIPT, str(tmp_path), "unknown")[-1])
    assert [name for name, _ in got["seen"]] == ['"jit_new"'] * 2, got["seen"]
    assert "xla_cpu_no_such_setting" not in got["seen"][1][1]  # the second try: usual settings
    assert np.allclose(got["new"], usual["new"], rtol=1e-6, atol=1e-5)
