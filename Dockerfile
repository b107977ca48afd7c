# App image for every `python -m app ...` service of docker-compose.yml (migrate, prepare, web,
# worker). Needs BuildKit (the default builder since Docker 23; `DOCKER_BUILDKIT=1` before).
#
# Base images are build arguments. The defaults are the official images; `make images` builds
# stand-ins from Debian's packages on a base made by mmdebstrap (deploy/images.sh) and passes
# them here, for machines that reach no image registry:
#     docker build --build-arg PYTHON_IMAGE=local/python:3.11-bookworm \
#                  --build-arg NODE_IMAGE=local/node:bookworm .
# Optional build inputs, used only while building and never stored in the image:
# - secret `ca_bundle`: a CA bundle for pip and npm behind a TLS-inspecting proxy
#   (`--secret id=ca_bundle,src=/etc/ssl/certs/ca-certificates.crt`);
# - deploy/wheels/: local wheels pip prefers (`make images` puts this machine's CPU-only torch
#   there; from the index, torch 2.13.0 for Linux is the multi-GB CUDA build). Elsewhere point
#   PIP_EXTRA_INDEX_URL at a CPU-only torch index.
#
# Sandbox needs (details in docs/operations.md, "The sandbox inside a container"):
# - bubblewrap builds each sandbox from unprivileged user namespaces (Debian's bwrap is not
#   setuid), prlimit (util-linux) sets its rlimits and libseccomp2 compiles its seccomp filter;
# - the app runs as the unprivileged user `app` (uid 10001): nothing here is setuid and nothing
#   needs to be. Every sandbox then runs as that uid (namespaces keep them apart); run as root
#   (`user: "0"`) only if you want each sandbox on a host uid of its own (CAP_SETUID/CAP_SETGID);
# - the container needs seccomp=deploy/seccomp-bwrap.json (Docker's default profile plus the
#   namespace calls bwrap makes; seccomp=unconfined works too), apparmor=unconfined on AppArmor
#   hosts and systempaths=unconfined (compose sets them), and a host kernel that allows
#   unprivileged user namespaces. No --privileged and no CAP_SYS_ADMIN.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm
ARG NODE_IMAGE=node:20-bookworm-slim

# Front-end assets are built in their own stage, so the app image carries no Node toolchain.
FROM ${NODE_IMAGE} AS assets
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN --mount=type=secret,id=ca_bundle --mount=type=cache,target=/root/.npm \
    if [ -s /run/secrets/ca_bundle ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca_bundle; fi \
 && npm ci --no-audit --no-fund
COPY frontend ./
RUN node build.mjs

FROM ${PYTHON_IMAGE} AS app
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      bubblewrap libseccomp2 util-linux \
 && rm -rf /var/lib/apt/lists/*
# A virtualenv of its own: the same on the official image and on Debian's python3.
RUN python3 -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /srv/app
# Dependencies first, from pyproject.toml alone: a change to the code does not reinstall them.
ARG PIP_EXTRA_INDEX_URL=""
ARG PIP_FIND_LINKS="/wheels"
COPY pyproject.toml ./
RUN --mount=type=secret,id=ca_bundle --mount=type=cache,target=/root/.cache/pip \
    --mount=type=bind,source=deploy/wheels,target=/wheels \
    if [ -s /run/secrets/ca_bundle ]; then export PIP_CERT=/run/secrets/ca_bundle; fi \
 && python -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]))' \
      > /tmp/requirements.txt \
 && pip install --disable-pip-version-check torch==2.13.0 \
 && pip install --disable-pip-version-check -r /tmp/requirements.txt \
 && rm /tmp/requirements.txt
COPY --from=assets /src/frontend/dist ./frontend/dist
COPY app ./app
COPY graders ./graders
COPY templates ./templates
COPY migrations ./migrations
COPY alembic.ini ./
COPY lessons ./lessons
COPY exercises ./exercises
COPY assessments ./assessments
COPY courses ./courses
COPY course.yaml ./
# The unprivileged user the app runs as; /data (a volume in compose) is the only place it writes:
# the SQLite file when embedded, logs, and the grading caches `python -m app prepare` fills.
RUN python -m compileall -q app graders \
 && useradd --system --uid 10001 --user-group --home-dir /data --no-create-home app \
 && mkdir -p /data && chown app:app /data
ENV APP_DATA_DIR=/data \
    JAX_CACHE_DIR=/data/jax-cache \
    MISTAKES_CACHE_DIR=/data/mistakes-cache \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1
USER app
EXPOSE 8000
# /srv/app is the working directory, so `python -m app` imports this tree (content, templates and
# migrations are found next to it).
CMD ["python", "-m", "app", "serve", "--host", "0.0.0.0", "--port", "8000"]
