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
