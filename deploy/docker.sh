# Sourced by the deploy scripts from the repository root: DOCKER is a docker client that builds with BuildKit.
# Docker 23+ clients need the buildx plugin for that; Debian's docker.io (20.10) has it built in,
# so without buildx we use Debian's client.
if [ -z "${DOCKER:-}" ]; then
  if docker buildx version >/dev/null 2>&1; then
    DOCKER=docker
  elif [ -x /usr/bin/docker ]; then
    DOCKER=/usr/bin/docker
  else
    DOCKER=docker
  fi
fi
export DOCKER
# COMPOSE: Compose v2 (`docker compose`) when the client has it, else Debian's Compose 1.29
# through deploy/compose129.py (which adds the one option translation 1.29 lacks).
if [ -z "${COMPOSE:-}" ]; then
  if $DOCKER compose version >/dev/null 2>&1; then
    COMPOSE="$DOCKER compose"
  elif command -v docker-compose >/dev/null 2>&1; then
    COMPOSE="$(sed -n '1s/^#! *//p' "$(command -v docker-compose)") $PWD/deploy/compose129.py"
  else
    COMPOSE=docker-compose
  fi
fi
export COMPOSE
