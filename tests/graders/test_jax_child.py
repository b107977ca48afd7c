"""graders/inside/jax_child.py outside the sandbox: a server that compiled natively refuses
resets, so its child leaves for a fresh JAX (NEEDS_FRESH_JAX) instead of compiling after
the fork."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from graders import protocol

GRADERS = Path(__file__).resolve().parents[2] / "graders"
SCRIPT = """
import os, sys
sys.path[:0] = [sys.argv[1] + "/inside", sys.argv[1]]
import jax, jax.numpy as jnp
jax.config.update("jax_cpu_enable_async_dispatch", False)
import jax_child
jax_child.watch_server()
jnp.ones(3).block_until_ready()  # no persistent cache: a native compilation
print("native", jax_child.NATIVE_COMPILES[0], flush=True)
jax_child.settle()
pid = os.fork()
if pid == 0:
    jax_child.Guard(may_reset=jax_child.NATIVE_COMPILES[0] == 0)
    jax.jit(lambda a: a * 5.0)(jnp.ones(7)).block_until_ready()
    os._exit(0)
_, status = os.waitpid(pid, 0)
print("child", os.waitstatus_to_exitcode(status), flush=True)
"""


def test_a_server_that_compiled_natively_sends_new_programs_to_a_fresh_jax() -> None:
    env = {"JAX_PLATFORMS": "cpu", "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false"}
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(GRADERS)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    lines = proc.stdout.split()
    assert lines[:2] == ["native", lines[1]] and int(lines[1]) > 0, proc.stderr[-2000:]
    assert lines[2:] == ["child", str(protocol.NEEDS_FRESH_JAX)], proc.stderr[-2000:]


POOL_SCRIPT = """
import os, sys
sys.path[:0] = [sys.argv[1] + "/inside", sys.argv[1]]
import jax, jax.numpy as jnp
jax.config.update("jax_cpu_enable_async_dispatch", False)
import jax_child

def two_functions(a):  # a module of several functions: MLIR verifies it on its thread pool
    return jax.jit(lambda b: b * 2.0)(a) + jax.jit(lambda b: b - 1.0)(a)

jax.jit(two_functions).lower(jax.ShapeDtypeStruct((3,), jnp.float32))  # lowering only
names = [open(f"/proc/self/task/{t}/comm").read().strip() for t in os.listdir("/proc/self/task")]
print("workers", sum(name.startswith("llvm-worker") for name in names), flush=True)
jax_child.settle()

def job(size, write, stop=None):
    def other(a):
        return jax.jit(lambda b: b * 3.0)(a) + jax.jit(lambda b: b + float(size))(a)
    jax.jit(other).lower(jax.ShapeDtypeStruct((size,), jnp.float32))  # new: never lowered here
    write(b"lowered")

for size in range(4, 4 + int(sys.argv[2])):
    pid = os.fork()
    if pid == 0:
        jax_child.run(job, size, lambda frame: None, may_reset=True)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    print("child", os.waitstatus_to_exitcode(status), flush=True)
"""


def test_children_lower_new_programs_of_several_functions_although_the_server_did_too() -> None:
    # The server's MLIR pool started its workers; a child that kept using that pool waited
    # forever for workers fork did not copy (every such child, not one in eight: the share of
    # student programs that lower to several functions). `timeout` only ends a hung run.
    children = 5
    env = {"JAX_PLATFORMS": "cpu", "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false"}
    proc = subprocess.run(
        [sys.executable, "-c", POOL_SCRIPT, str(GRADERS), str(children)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    lines = proc.stdout.split()
    assert lines[:1] == ["workers"] and int(lines[1]) > 0, proc.stderr[-2000:]
    assert lines[2:] == ["child", "0"] * children, proc.stderr[-2000:]
