# App image for every `python -m app ...` service of docker-compose.yml (migrate, web, worker).
#
# Sandbox needs (details in docs/operations.md):
# - bubblewrap builds each sandbox from unprivileged user namespaces, prlimit (util-linux) sets its
#   rlimits and libseccomp2 compiles its seccomp filter;
# - the grader starts as root inside the container (the default here) and gives every sandbox
#   its own high uid with setuid/setgid (CAP_SETUID/CAP_SETGID, in Docker's default set);
# - the container must be run with seccomp=unconfined, apparmor=unconfined and
#   systempaths=unconfined (compose sets them), and the host kernel must allow unprivileged
#   user namespaces. No --privileged and no CAP_SYS_ADMIN.

# Front-end assets are built in their own stage, so the app image carries no Node toolchain.
FROM node:20-bookworm-slim AS assets
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend ./
RUN node build.mjs

FROM python:3.11-slim-bookworm
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap libseccomp2 util-linux \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /srv/app
COPY pyproject.toml README.md ./
COPY app ./app
COPY graders ./graders
# Point PIP_EXTRA_INDEX_URL (or PIP_FIND_LINKS) at a CPU-only torch build to keep the image small.
ARG PIP_EXTRA_INDEX_URL=""
ARG PIP_FIND_LINKS=""
RUN pip install --no-cache-dir torch==2.13.0 && pip install --no-cache-dir .
COPY --from=assets /src/frontend/dist ./frontend/dist
COPY templates ./templates
COPY migrations ./migrations
COPY alembic.ini ./
COPY lessons ./lessons
COPY exercises ./exercises
COPY courses ./courses
COPY course.yaml ./
# /srv/app is the working directory, so `python -m app` imports this tree (content, templates and
# migrations are found next to it); /data holds caches and logs (a volume in compose).
ENV APP_DATA_DIR=/data PYTHONUNBUFFERED=1
EXPOSE 8000
CMD ["python", "-m", "app", "serve", "--host", "0.0.0.0", "--port", "8000"]
