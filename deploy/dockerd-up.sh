#!/bin/sh
# Start the Docker daemon when none answers (a development machine or CI without systemd), and
# wait until it does. Installs Debian's docker.io, docker-compose and mmdebstrap when missing.
set -eu
cd "$(dirname "$0")/.."
if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker-compose >/dev/null 2>&1 \
    || ! command -v mmdebstrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing docker.io, docker-compose and mmdebstrap (Debian's packages)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io docker-compose mmdebstrap >/dev/null
  else
    echo "Docker Engine, Compose and mmdebstrap are missing: run 'sudo apt-get install docker.io docker-compose mmdebstrap'." >&2
    exit 1
  fi
fi
. deploy/docker.sh
if $DOCKER info >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "No Docker daemon answers and only root can start one: run 'sudo dockerd &' or 'sudo systemctl start docker'." >&2
  exit 1
fi
LOG=${DOCKERD_LOG:-/var/log/dockerd.log}
echo "starting dockerd (log: $LOG)"
# setsid: the daemon outlives this make run, like a system service would.
setsid dockerd >"$LOG" 2>&1 </dev/null &
i=0
while ! $DOCKER info >/dev/null 2>&1; do
  i=$((i + 1))
  if [ "$i" -gt 60 ]; then
    echo "dockerd did not answer within 60 s; its last lines ($LOG):" >&2
    tail -n 20 "$LOG" >&2
    exit 1
  fi
  sleep 1
done
