"""What one job plants in its process and the next job of the same warm server looks for.

Each `Plant` is a statement run by the planting job (in its submission module) and an
expression that is true in any later job that can see it. The planting job also looks for all
of them itself, after planting: that proves each look would see its plant (a look that sees
nothing anyway would make the later job's "found nothing" worthless).

The secret is a random token per test run. The planting job's source, its arrays, tensors and
device buffers, its files and caches hold it; the looking job gets only its hash and scans its
own readable memory for it, so its own source never holds the token.

Plants may run twice in one job: a JAX child that resets runs the job's file again in the same
process (graders/inside/jax_child.py), so each plant can be repeated.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, replace

PREFIX = "PLANTSEC"  # what the memory scan looks for first; the 16 characters after it are hashed


@dataclass(frozen=True)
class Plant:
    name: str
    plant: str  # statements, run in the submission module's namespace
    look: str  # an expression, true when the plant is seen
    frameworks: tuple[str, ...] = ("numpy", "torch", "jax", "flax")
    compiles: bool = False  # JAX: changes what programs JAX builds (the job compiles anew)
    may_fail: bool = False  # the sandbox refuses it (a read-only place): fine, still looked for


def _wrap(target: str) -> str:
    """Replace `target` by a wrapper that behaves the same and is marked as planted."""
    return (
        f"_orig = {target}\n"
        "def _planted_wrapper(*a, _orig=_orig, **k):\n    return _orig(*a, **k)\n"
        "_planted_wrapper.planted = True\n"
        f"{target} = _planted_wrapper\n"
    )


def _only(frameworks: tuple[str, ...], plants: list[Plant]) -> list[Plant]:
    return [replace(p, frameworks=frameworks) for p in plants]


def _marked(target: str) -> str:
    return f"getattr({target}, 'planted', False) is True"


SEED = 918_273
COMMON = [
    Plant("module global", "PLANTED_GLOBAL = SECRET", "'PLANTED_GLOBAL' in globals()"),
    Plant(
        "an earlier submission module (gc)",
        "pass",
        "any(isinstance(o, dict) and 'PLANTED_GLOBAL' in o for o in gc.get_objects())",
    ),
    Plant(
        "sys.modules entry",
        "sys.modules['planted_module'] = types.ModuleType('planted_module')",
        "'planted_module' in sys.modules",
    ),
    Plant(
        "builtins attribute",
        "builtins.PLANTED_BUILTIN = SECRET",
        "hasattr(builtins, 'PLANTED_BUILTIN')",
    ),
    Plant("builtins.print replaced", _wrap("builtins.print"), _marked("builtins.print")),
    Plant(
        "the harness's own function (__main__)",
        _wrap("sys.modules['__main__']._to_numpy"),
        _marked("sys.modules['__main__']._to_numpy"),
    ),
    Plant(
        "the harness's protocol module",
        _wrap("sys.modules['protocol'].encode_array"),
        _marked("sys.modules['protocol'].encode_array"),
    ),
    Plant("os.environ", "os.environ['PLANTED_ENV'] = SECRET", "'PLANTED_ENV' in os.environ"),
    Plant(
        "putenv (C environment)",
        "os.putenv('PLANTED_PUTENV', '1')",
        "_c_getenv(b'PLANTED_PUTENV') is not None",
    ),
    Plant("sys.path", "sys.path.insert(0, '/tmp/planted-path')", "'/tmp/planted-path' in sys.path"),
    Plant(
        "an import hook (sys.meta_path)",
        "class PlantedFinder:\n    planted = True\n"
        "    def find_spec(self, *a, **k):\n        return None\n"
        "sys.meta_path.insert(0, PlantedFinder())",
        "any(getattr(f, 'planted', False) is True for f in sys.meta_path)",
    ),
    Plant("sys.excepthook", _wrap("sys.excepthook"), _marked("sys.excepthook")),
    Plant("recursion limit", "sys.setrecursionlimit(4321)", "sys.getrecursionlimit() == 4321"),
    Plant(
        "int digits limit",
        "sys.set_int_max_str_digits(4321)",
        "sys.get_int_max_str_digits() == 4321",
    ),
    Plant(
        "switch interval",
        "sys.setswitchinterval(0.0321)",
        "abs(sys.getswitchinterval() - 0.0321) < 1e-5",
    ),
    Plant(
        "threading profile",
        "threading.setprofile(lambda *a: None)",
        "threading.getprofile() is not None",
    ),
    Plant(
        "a thread",
        "threading.Thread(target=time.sleep, args=(3600,), name='planted-thread',"
        " daemon=True).start()",
        "any(t.name == 'planted-thread' for t in threading.enumerate())",
    ),
    Plant(
        "warnings filter",
        "warnings.filterwarnings('ignore', message='planted-warning')",
        "any(f[1] is not None and 'planted-warning' in f[1].pattern for f in warnings.filters)",
    ),
    Plant(
        "signal handler",
        "signal.signal(signal.SIGUSR1, lambda *a: None)",
        "signal.getsignal(signal.SIGUSR1) not in (signal.SIG_DFL, None)",
    ),
    Plant("gc disabled", "gc.disable()", "not gc.isenabled()"),
    Plant("gc threshold", "gc.set_threshold(4321)", "gc.get_threshold()[0] == 4321"),
    Plant(
        "own file limit",
        "resource.setrlimit(resource.RLIMIT_NOFILE,"
        " (200, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))",
        "resource.getrlimit(resource.RLIMIT_NOFILE)[0] == 200",
    ),
    Plant(
        "linecache",
        "linecache.cache['planted.py'] = (1, None, [SECRET], 'planted.py')",
        "'planted.py' in linecache.cache",
    ),
    Plant(
        "re cache",
        "re.compile('planted-regex-' + SECRET)",
        "any('planted-regex-' in str(k) for k in re._cache)",
    ),
    Plant(
        "an lru cache (fnmatch)",
        "fnmatch.fnmatch('x', 'planted-fnmatch-*')",
        "(lambda h: (fnmatch.fnmatch('x', 'planted-fnmatch-*'), "
        "fnmatch._compile_pattern.cache_info().hits > h)[1])"
        "(fnmatch._compile_pattern.cache_info().hits)",
    ),
    Plant("numpy attribute", "np.planted = SECRET", "hasattr(np, 'planted')"),
    Plant("numpy function replaced", _wrap("np.linalg.norm"), _marked("np.linalg.norm")),
    Plant("np.seterr", "np.seterr(under='warn')", "np.geterr()['under'] == 'warn'"),
    Plant("np.seterrcall", "np.seterrcall(lambda *a: None)", "np.geterrcall() is not None"),
    Plant(
        "np.set_printoptions",
        "np.set_printoptions(threshold=7)",
        "np.get_printoptions()['threshold'] == 7",
    ),
    Plant(
        "np.random.seed",
        f"np.random.seed({SEED})",
        "np.random.random_sample(4).tolist() == "
        f"np.random.RandomState({SEED}).random_sample(4).tolist()",
    ),
    Plant(
        "a numpy array of the secret",
        "KEEP_N = np.frombuffer(SECRET.encode(), np.uint8).copy()",
        "False",
    ),
    Plant(
        "file in /tmp",
        "open('/tmp/planted-file', 'w').write(SECRET)",
        "os.path.lexists('/tmp/planted-file')",
    ),
    Plant(
        "hidden folder in /tmp",
        "os.makedirs('/tmp/.planted-dir/deep', exist_ok=True)",
        "os.path.lexists('/tmp/.planted-dir')",
    ),
    Plant(
        "symlink in /tmp",
        "os.path.lexists('/tmp/planted-link') or os.symlink('/etc/hostname', '/tmp/planted-link')",
        "os.path.lexists('/tmp/planted-link')",
    ),
    Plant(
        "fifo in /tmp",
        "os.path.lexists('/tmp/planted-fifo') or os.mkfifo('/tmp/planted-fifo')",
        "os.path.lexists('/tmp/planted-fifo')",
    ),
    Plant(
        "file in the working folder",
        "open('planted-cwd', 'w').write(SECRET)",
        "any('planted' in n for n in os.listdir('.') + os.listdir('/tmp'))",
    ),
    Plant(
        "socket in /tmp",
        "socket.socket(socket.AF_UNIX).bind('/tmp/planted-sock')",
        "os.path.lexists('/tmp/planted-sock')",
        may_fail=True,
    ),
    Plant(
        "file in /dev/shm",
        "open('/dev/shm/planted', 'w').write(SECRET)",
        "os.path.lexists('/dev/shm/planted')",
        may_fail=True,
    ),
    Plant(
        "file in /var/tmp",
        "open('/var/tmp/planted', 'w').write(SECRET)",
        "os.path.lexists('/var/tmp/planted')",
        may_fail=True,
    ),
    Plant(
        "file beside the harness",
        "open('/grader/planted', 'w').write(SECRET)",
        "os.path.lexists('/grader/planted')",
        may_fail=True,
    ),
    Plant(
        "a key in the user keyring",
        "_ok(_libc.syscall(248, b'user', b'planted', SECRET.encode(), len(SECRET), -4))",
        "_libc.syscall(250, 10, -4, b'user', b'planted', 0) >= 0",
        may_fail=True,
    ),
    Plant(
        "a POSIX message queue",
        "_ok(_libc.mq_open(b'/planted', 0o102, 0o600, None))",
        "_libc.mq_open(b'/planted', 0, 0, None) >= 0",
        may_fail=True,
    ),
    Plant(
        "umask", "os.umask(0o137)", "(lambda old: (os.umask(old), old)[1])(os.umask(0o22)) == 0o137"
    ),
    Plant("working folder", "os.chdir('/tmp/.planted-dir')", "os.getcwd() != '/tmp'"),
]

TORCH = _only(
    ("torch",),
    [
        Plant("torch attribute", "torch.planted = SECRET", "hasattr(torch, 'planted')"),
        Plant(
            "torch function replaced",
            _wrap("torch.nn.functional.embedding"),
            _marked("torch.nn.functional.embedding"),
        ),
        Plant(
            "torch default dtype",
            "torch.set_default_dtype(torch.float64)",
            "torch.get_default_dtype() == torch.float64",
        ),
        Plant(
            "torch.manual_seed",
            f"torch.manual_seed({SEED})",
            "torch.rand(4, dtype=torch.float32).tolist() == "
            "torch.rand(4, dtype=torch.float32,"
            f" generator=torch.Generator().manual_seed({SEED})).tolist()",
        ),
        Plant("torch threads", "torch.set_num_threads(2)", "torch.get_num_threads() == 2"),
        Plant("torch grad mode", "torch.set_grad_enabled(False)", "not torch.is_grad_enabled()"),
        Plant(
            "torch deterministic",
            "torch.use_deterministic_algorithms(True)",
            "torch.are_deterministic_algorithms_enabled()",
        ),
        Plant(
            "torch anomaly mode",
            "torch.autograd.set_detect_anomaly(True)",
            "torch.is_anomaly_enabled()",
        ),
        Plant(
            "torch print options",
            "torch.set_printoptions(precision=2)",
            "torch._tensor_str.PRINT_OPTS.precision == 2",
        ),
        Plant(
            "a tensor of the secret",
            "KEEP_T = torch.frombuffer(bytearray(SECRET.encode()), dtype=torch.uint8).clone()",
            "False",
        ),
    ],
)

JAX = _only(
    ("jax", "flax"),
    [
        Plant("jax attribute", "jax.planted = SECRET", "hasattr(jax, 'planted')"),
        Plant("jax.numpy function replaced", _wrap("jnp.take"), _marked("jnp.take")),
        Plant(
            "jax.random.PRNGKey replaced",
            _wrap("jax.random.PRNGKey"),
            _marked("jax.random.PRNGKey"),
        ),
        Plant(
            "a device array of the secret",
            "KEEP_J = jax.device_put(np.frombuffer(SECRET.encode(), np.uint8).copy())",
            "False",
        ),
        Plant(
            "jax cache folder",
            "jax.config.update('jax_compilation_cache_dir', '/tmp/planted-cache')",
            "jax.config.jax_compilation_cache_dir == '/tmp/planted-cache'",
        ),
        Plant(
            "jax_enable_x64",
            "jax.config.update('jax_enable_x64', True)",
            "jax.config.jax_enable_x64",
            compiles=True,
        ),
        Plant(
            "jax PRNG implementation",
            "jax.config.update('jax_default_prng_impl', 'rbg')",
            "jax.config.jax_default_prng_impl == 'rbg'",
            compiles=True,
        ),
        Plant(
            "jax matmul precision",
            "jax.config.update('jax_default_matmul_precision', 'highest')",
            "jax.config.jax_default_matmul_precision == 'highest'",
            compiles=True,
        ),
        Plant(
            "a compiled program holding the secret",
            "KEEP_F = jax.jit(lambda x: x + jnp.asarray(np.frombuffer(SECRET.encode(), np.uint8)))"
            "(jnp.zeros(len(SECRET), jnp.uint8)).block_until_ready()",
            "False",
            compiles=True,
        ),
    ],
)

FLAX = _only(
    ("flax",),
    [
        Plant("flax attribute", "flax.planted = SECRET", "hasattr(flax, 'planted')"),
        Plant(
            "flax Module class attribute",
            "flax.linen.Module.planted = SECRET",
            "hasattr(flax.linen.Module, 'planted')",
        ),
        Plant(
            "flax config",
            "flax.config.update('flax_max_repr_depth', 7)",
            "flax.config.flax_max_repr_depth == 7",
        ),
        Plant(
            "flax initializer replaced",
            _wrap("flax.linen.initializers.normal"),
            _marked("flax.linen.initializers.normal"),
        ),
    ],
)

MEMORY = Plant("the secret anywhere in the process's memory", "pass", "_memory_holds_secret()")

IMPORTS = {
    "numpy": "",
    "torch": "import torch\n",
    "jax": "import jax, jax.numpy as jnp\n",
    "flax": "import jax, jax.numpy as jnp, flax, flax.linen\n",
}

HEADER = """
import builtins, ctypes, fnmatch, gc, hashlib, linecache, os, re, resource, signal, socket
import sys, threading, time, types, warnings
import numpy as np
{imports}
_PREFIX, _DIGEST = {prefix!r}.encode(), {digest!r}


def _memory_holds_secret():
    \"\"\"Whether writable memory of this process holds the secret (only its hash is here).\"\"\"
    with open('/proc/self/maps') as maps:
        lines = maps.read().splitlines()
    for line in lines:
        fields = line.split(maxsplit=5)
        path = fields[5] if len(fields) > 5 else ''
        if not fields[1].startswith('rw') or path.startswith(('[v', '/dev/')):
            continue
        start, end = (int(x, 16) for x in fields[0].split('-'))
        for at in range(start, end, 1 << 22):
            chunk = ctypes.string_at(at, min((1 << 22) + 32, end - at))
            i = chunk.find(_PREFIX)
            while i >= 0:
                tail = chunk[i + len(_PREFIX):i + len(_PREFIX) + 16]
                if hashlib.sha256(tail).hexdigest() == _DIGEST:
                    return True
                i = chunk.find(_PREFIX, i + 1)
    return False

_libc = ctypes.CDLL(None, use_errno=True)


def _ok(result):
    if result < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def _c_getenv(name):
    getenv = ctypes.CDLL(None).getenv
    getenv.restype = ctypes.c_char_p
    return getenv(name)


def _look(looks):
    found, errors = [], []
    for name, expression in looks:
        try:
            if eval(expression):
                found.append(name)
        except Exception as exc:
            errors.append(f'{{name}}: {{type(exc).__name__}}: {{exc}}')
    return found, errors
"""


@dataclass(frozen=True)
class Secret:
    token: str  # 16 hex characters

    @property
    def text(self) -> str:
        return PREFIX + self.token

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.token.encode()).hexdigest()


def new_secret() -> Secret:
    return Secret(secrets.token_hex(8))


def plants_for(framework: str, *, compiles: bool = True) -> list[Plant]:
    """Every plant of this framework (without those that make JAX compile, unless `compiles`)."""
    chosen = [p for p in COMMON + TORCH + JAX + FLAX if framework in p.frameworks]
    return [p for p in chosen if compiles or not p.compiles] + [MEMORY]


def _header(framework: str, secret: Secret) -> str:
    return HEADER.format(imports=IMPORTS[framework], prefix=PREFIX, digest=secret.digest)


def planting_job(solution: str, framework: str, secret: Secret, *, compiles: bool) -> str:
    """The solution, then every plant, then a look for each (printed: PLANT-FAILED, SAME-JOB)."""
    plants = plants_for(framework, compiles=compiles)
    # The token is written out once, here, and only in the planting job.
    return (
        solution + "\n" + _header(framework, secret) + f"SECRET = {secret.text!r}\n"
        f"_PLANTS = {[(p.name, p.plant) for p in plants]!r}\n"
        f"_LOOKS = {[(p.name, p.look) for p in plants]!r}\n"
        "_failed = []\n"
        "for _name, _code in _PLANTS:\n"
        "    try:\n        exec(_code, globals())\n"
        "    except Exception as _exc:\n        _failed.append((_name, repr(_exc)))\n"
        "builtins.print('PLANT-FAILED', repr(_failed))\n"
        "builtins.print('SAME-JOB', repr(_look(_LOOKS)))\n"
    )


def looking_job(solution: str, framework: str, secret: Secret) -> str:
    """The solution, then a look for every plant: prints FOUND, and fails the file if any."""
    looks = [(p.name, p.look) for p in plants_for(framework)]
    return (
        solution + "\n" + _header(framework, secret) + f"_LOOKS = {looks!r}\n"
        "_found, _errors = _look(_LOOKS)\n"
        "print('FOUND', repr((_found, _errors)))\n"
        "if _found or _errors:\n"
        "    raise RuntimeError(f'an earlier job left {_found} (errors: {_errors})')\n"
    )
