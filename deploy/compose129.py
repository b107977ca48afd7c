"""Compose 1.29 (Debian's docker-compose) with `security_opt: systempaths=unconfined` honoured.

The Docker CLI and Compose v2 turn that option into empty MaskedPaths and ReadonlyPaths in the
container's host config before calling the Engine, which does not know the option itself;
Compose 1.29 sends it as it is and the Engine refuses the container. This runs Compose 1.29 with
that one translation added. Run it with the interpreter of the `docker-compose` script.
"""

import sys

from docker.types import containers

_original_init = containers.HostConfig.__init__


def _init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
    """HostConfig as Compose 1.29 builds it, with systempaths=unconfined made into paths."""
    _original_init(self, *args, **kwargs)
    options = self.get("SecurityOpt") or []
    if "systempaths=unconfined" in options:
        self["SecurityOpt"] = [o for o in options if o != "systempaths=unconfined"]
        self["MaskedPaths"] = []
        self["ReadonlyPaths"] = []


containers.HostConfig.__init__ = _init

from compose.cli.main import main  # noqa: E402  (after the patch, as the CLI would import it)

if __name__ == "__main__":
    sys.exit(main())
