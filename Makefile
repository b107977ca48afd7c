# Two commands set everything up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
ASSETS := frontend/dist/.built
HOST ?= 127.0.0.1
PORT ?= 8000
# pytest-xdist workers: 2 for the 2-core machine the suite is timed on (`PYTEST_WORKERS=0` runs
# the tests in one process; `auto` starts one worker per core, each with warm grader pools of its
# own, so more memory). Tests sharing a module- or package-wide fixture stay on one worker.
PYTEST_WORKERS ?= 2
PYTEST := $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup --durations=25
# Python's default: compiled modules are kept (__pycache__, ignored by git), so the hundreds of
# processes a run starts (servers, the command line, pytest's workers with the plugins' rewritten
# asserts) do not each compile every module again. Some machines set this to keep folders clean.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: system install assets migrate prepare run test test-scenarios test-all test-grader lint typecheck validate bench soak clean \
	images compose-check

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip setuptools wheel
	$(BIN)/pip install --quiet -e ".[dev]"
	@touch $(STAMP)

$(ASSETS): frontend/package.json frontend/package-lock.json frontend/build.mjs $(wildcard frontend/src/*) \
		$(wildcard frontend/src/editor/*)
	cd frontend && npm ci --no-audit --no-fund && node build.mjs

install: $(STAMP)

# Grading runs submitted code in bubblewrap sandboxes: install it when we can, else say how.
system:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing bubblewrap (grading runs submitted code in its sandboxes)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap; \
	  else \
	    echo "Grading needs bubblewrap (the bwrap command), which is not installed."; \
	    echo "Install it, then run make again:"; \
	    echo "    sudo apt-get install bubblewrap"; \
	    exit 1; \
	  fi; }

assets: $(ASSETS)

migrate: install
	$(BIN)/python -m app migrate

# Grading's set-up: JAX's compilation cache, expected and known mistakes' outputs, and the lab's
# reference experiments (each a no-op when up to date), so no page or first job waits for them.
prepare: install
	$(BIN)/python -m app prepare
	$(BIN)/python -m app experiments

run: system install assets migrate prepare
	-$(BIN)/python -m app validate --no-grade  # quick content check; `make validate` also grades
	$(BIN)/python -m app serve --host $(HOST) --port $(PORT)

lint: install
	$(BIN)/ruff check app graders tests exercises courses migrations
	$(BIN)/ruff format --check app graders tests

typecheck: install
	$(BIN)/mypy

# Every course in the repository, graded; a check that passed with the same files is not graded
# again (var/validate-cache), which tests/content/test_course_folders.py reads too.
validate: install
	$(BIN)/python -m app validate
	@for course in courses/*/; do \
	  echo "CONTENT_DIR=$$course $(BIN)/python -m app validate"; \
	  CONTENT_DIR=$$course $(BIN)/python -m app validate || exit 1; \
	done

# Every test but the end-to-end scenarios (marked `scenario` in tests/conftest.py). The static
# checks and `validate` run side by side (mypy uses one core; validate's grading leaves room).
test: system install assets migrate prepare
	$(MAKE) --no-print-directory --output-sync=target -j3 lint typecheck validate
	$(PYTEST) -m "not scenario"

# The end-to-end scenarios: real servers and workers, benchmarks in small, Chromium.
test-scenarios: system install assets migrate prepare
	$(PYTEST) -m scenario

# Everything: what CI runs as root.
test-all: test test-scenarios

# The grader's suites alone (CI runs them again as an ordinary user: .ci/as-user).
# With `prepare` first, as `make test` has it: a JAX server warming up from an empty compilation
# cache compiles every program natively (about 100 s for one exercise as an ordinary user), which
# a first job's 120 s wait for its interpreter met only on a quiet machine.
test-grader: system install prepare
	$(PYTEST) tests/graders

bench: install
	$(BIN)/python -m app bench

soak: install
	$(BIN)/python -m app soak --jobs 1000

# The scale-out deployment (docker-compose.yml), built and exercised for real; docs/operations.md.
# `images` starts dockerd if none answers and builds every image compose needs: on the official
# images where a registry answers, else on Debian's packages over an mmdebstrap base (cached: a
# second run with nothing changed takes seconds). `compose-check` starts the deployment, drives it
# from 127.0.0.1 (a student, a grading burst, a killed worker, database and Redis restarts, a
# backup restored, down and up again) and stops it; with UPGRADE_FROM=<commit> it then runs the
# upgrade drill (that commit's code populated, migrated by today's). Neither is in `make test`;
# CI runs compose-check with the upgrade drill as its last stage (.ci/compose-check).
images:
	@sh deploy/dockerd-up.sh
	@sh deploy/images.sh

compose-check: images
	@. deploy/docker.sh && $$COMPOSE_PYTHON deploy/compose_check.py
	@if [ -n "$(UPGRADE_FROM)" ]; then \
	  . deploy/docker.sh && $$COMPOSE_PYTHON deploy/upgrade_drill.py "$(UPGRADE_FROM)"; fi

clean:
	rm -rf $(VENV) frontend/node_modules frontend/dist var .pytest_cache .mypy_cache .ruff_cache
