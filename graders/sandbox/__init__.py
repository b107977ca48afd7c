"""Sandbox for untrusted Python: bubblewrap namespaces, seccomp, rlimits, one job per process."""

from graders.sandbox.limits import SandboxLimits
from graders.sandbox.process import READY, ExitStatus, ResourceUsage, SandboxError, SandboxProcess
from graders.sandbox.runner import base_env, sandbox_python, spawn

__all__ = [
    "READY",
    "ExitStatus",
    "ResourceUsage",
    "SandboxError",
    "SandboxLimits",
    "SandboxProcess",
    "base_env",
    "sandbox_python",
    "spawn",
]
