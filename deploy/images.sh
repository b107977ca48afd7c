#!/bin/sh
# `make images`: every image docker-compose.yml needs, built and tagged on this machine.
#
# Where the official images can be pulled (or are already here), the app is built on them.
# Where no image registry answers, each is replaced by a stand-in built from Debian's packages on
# a Debian base that mmdebstrap makes (deploy/images/*.Dockerfile): Python, Node (the assets
# stage), PostgreSQL 15 and Redis. IMAGE_SOURCE=official or IMAGE_SOURCE=debian forces a choice.
# The choice is written to deploy/images.env, which compose reads (`--env-file`).
# Everything is cached: nothing changed, nothing is rebuilt (a few seconds).
set -eu
cd "$(dirname "$0")/.."
. deploy/docker.sh
SOURCE=${IMAGE_SOURCE:-auto}
APP_IMAGE=${APP_IMAGE:-posembed-course:latest}
CA_BUNDLE=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
OFFICIAL="python:3.11-slim-bookworm node:20-bookworm-slim postgres:15 redis:7"
NICE="nice -n 10"
export DOCKER_BUILDKIT=1

have() { $DOCKER image inspect "$1" >/dev/null 2>&1; }

official_available() {
  for image in $OFFICIAL; do
    have "$image" && continue
    echo "pulling $image"
    timeout "${PULL_TIMEOUT:-60}" $DOCKER pull -q "$image" >/dev/null 2>&1 || return 1
  done
}

if [ "$SOURCE" = auto ]; then
  if official_available; then SOURCE=official; else SOURCE=debian; fi
  echo "image source: $SOURCE"
fi

secret=""
if [ -s "$CA_BUNDLE" ]; then secret="--secret id=ca_bundle,src=$CA_BUNDLE"; fi

build() {  # build TAG DOCKERFILE CONTEXT [ARGS...]
  tag=$1 file=$2 context=$3
  shift 3
  start=$(date +%s)
  $NICE $DOCKER build -q -t "$tag" -f "$file" "$@" "$context" >/dev/null
  echo "built $tag in $(($(date +%s) - start)) s"
}

if [ "$SOURCE" = debian ]; then
  DEBIAN_IMAGE=local/debian:bookworm
  if ! have "$DEBIAN_IMAGE"; then
    command -v mmdebstrap >/dev/null || { echo "mmdebstrap is missing: apt-get install mmdebstrap" >&2; exit 1; }
    rootfs=$(mktemp -d)/rootfs.tar
    echo "making $DEBIAN_IMAGE with mmdebstrap (about 20 s)"
    $NICE mmdebstrap --quiet --variant=minbase bookworm "$rootfs"
    $DOCKER import "$rootfs" "$DEBIAN_IMAGE" >/dev/null
    rm -rf "$(dirname "$rootfs")"
  fi
  # PostgreSQL and Redis build beside the rest (most of their time is apt waiting on downloads
  # and dpkg on the disk); the app needs only Python and Node. Their failures are waited for below.
  side=""
  for name in postgres:15 redis:7; do
    build "local/$name" "deploy/images/${name%%:*}.Dockerfile" deploy/images \
      --build-arg DEBIAN_IMAGE="$DEBIAN_IMAGE" &
    side="$side $!"
  done
  for name in python:3.11-bookworm node:bookworm; do
    build "local/$name" "deploy/images/${name%%:*}.Dockerfile" deploy/images \
      --build-arg DEBIAN_IMAGE="$DEBIAN_IMAGE"
  done
  PYTHON_IMAGE=local/python:3.11-bookworm NODE_IMAGE=local/node:bookworm
  POSTGRES_IMAGE=local/postgres:15 REDIS_IMAGE=local/redis:7
else
  PYTHON_IMAGE=python:3.11-slim-bookworm NODE_IMAGE=node:20-bookworm-slim
  POSTGRES_IMAGE=postgres:15 REDIS_IMAGE=redis:7
fi

# The CPU-only torch wheel this machine's pip would install, handed to the build (hard-linked
# when it can be): from the index, torch for Linux is the CUDA build, gigabytes larger.
mkdir -p deploy/wheels
if ! ls deploy/wheels/torch-2.13.0*.whl >/dev/null 2>&1; then
  for dir in $(pip3 config list 2>/dev/null | sed -n "s/.*find-links='\(.*\)'/\1/p") /opt/wheels; do
    for wheel in "$dir"/torch-2.13.0*cpu*.whl; do
      [ -f "$wheel" ] || continue
      ln "$wheel" deploy/wheels/ 2>/dev/null || cp "$wheel" deploy/wheels/
      echo "using $(basename "$wheel")"
      break 2
    done
  done
fi

build "$APP_IMAGE" Dockerfile . $secret \
  --build-arg PYTHON_IMAGE="$PYTHON_IMAGE" --build-arg NODE_IMAGE="$NODE_IMAGE"

for pid in ${side:-}; do
  wait "$pid" || { echo "building the PostgreSQL or Redis image failed (its error is above)" >&2; exit 1; }
done

cat > deploy/images.env <<ENV
# Written by deploy/images.sh ($SOURCE images); read by docker-compose --env-file.
APP_IMAGE=$APP_IMAGE
POSTGRES_IMAGE=$POSTGRES_IMAGE
REDIS_IMAGE=$REDIS_IMAGE
PYTHON_IMAGE=$PYTHON_IMAGE
NODE_IMAGE=$NODE_IMAGE
ENV
