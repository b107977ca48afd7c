# Sourced by the deploy scripts from the repository root.
# DOCKER: a docker client that builds with BuildKit. Docker 23+ clients need the buildx plugin
# for that; Debian's docker.io (20.10) has it built in, so without buildx we use Debian's client.
if [ -z "${DOCKER:-}" ]; then
  if docker buildx version >/dev/null 2>&1; then
    DOCKER=docker
  elif [ -x /usr/bin/docker ]; then
    DOCKER=/usr/bin/docker
  else
    DOCKER=docker
  fi
fi
# COMPOSE: Compose v2 (`docker compose`) when the client has it, else Debian's Compose 1.29
# through deploy/compose129.py, which adds the one option translation 1.29 lacks
# (systempaths=unconfined). COMPOSE_PYTHON runs the check: Compose 1.29's interpreter, which
# has PyYAML.
COMPOSE_PYTHON=python3
if command -v docker-compose >/dev/null 2>&1; then
  shebang=$(sed -n '1s/^#! *//p' "$(command -v docker-compose)")
  case "$shebang" in */python3*) COMPOSE_PYTHON=$shebang ;; esac
fi
if [ -z "${COMPOSE:-}" ]; then
  if $DOCKER compose version >/dev/null 2>&1; then
    COMPOSE="$DOCKER compose"
  else
    COMPOSE="$COMPOSE_PYTHON $PWD/deploy/compose129.py"
  fi
fi
export DOCKER COMPOSE COMPOSE_PYTHON
