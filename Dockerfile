# App image: the same `python -m app` commands as a native install, plus bubblewrap for the sandbox.
FROM python:3.11-slim-bookworm
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap nodejs npm make \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /srv/app
COPY pyproject.toml README.md ./
COPY app ./app
COPY graders ./graders
# Point PIP_EXTRA_INDEX_URL (or PIP_FIND_LINKS) at a CPU-only torch build to keep the image small.
ARG PIP_EXTRA_INDEX_URL=""
ARG PIP_FIND_LINKS=""
RUN pip install --no-cache-dir torch==2.13.0 && pip install --no-cache-dir .
COPY frontend ./frontend
RUN cd frontend && npm ci --no-audit --no-fund && node build.mjs && rm -rf node_modules
COPY templates ./templates
COPY migrations ./migrations
COPY lessons ./lessons
COPY exercises ./exercises
ENV APP_DATA_DIR=/data
EXPOSE 8000
CMD ["python", "-m", "app", "serve", "--host", "0.0.0.0", "--port", "8000"]
