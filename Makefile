# Discount Deals: `make run` serves the shop on $(PORT); `make dev` hot-reloads; `make test` runs every test.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
PORT ?= 3000
# This machine only; HOST=0.0.0.0 serves the LAN (the fake payment provider is then refused).
HOST ?= 127.0.0.1
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
STAMP := .make

export PATH := $(BIN):$(PATH)
export REFLEX_USE_NPM := 1
export REFLEX_TELEMETRY_ENABLED := false
export REFLEX_CHECK_LATEST_VERSION := false
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: help install install-test lock lint migrate seed run dev check-config test test-fast test-postgres test-prod \
        chromium prod-deps axe clean

help:
	@echo "make run           install, check the configuration, migrate, seed the demo catalogue if empty,"
	@echo "                   build the frontend when it changed, serve on port $(PORT) (docs/deploy.md)"
	@echo "make dev           the same with hot reload (reflex run) for development"
	@echo "make check-config  check the settings and that the database (and Redis) answer"
	@echo "make test          install what tests need, lint, and run every test (make test-fast: no browser)"
	@echo "make lock          re-resolve requirements.txt and requirements-test.lock from pyproject.toml"

$(BIN)/python:
	$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "Python 3.11+ is required" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)

# Dependencies are declared in pyproject.toml and pinned, with everything they pull in, in two
# lock files: requirements.txt (what the shop runs on: `make install`, `make run`, the Dockerfile,
# `pip install -r requirements.txt`)
# and requirements-test.lock (the same pins plus pytest, Playwright, schemathesis, ruff: `make test`).
# Each is reinstalled only when it changes.
$(STAMP)/requirements: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	@mkdir -p $(STAMP) && touch $@

$(STAMP)/requirements-test: requirements-test.lock | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-test.lock
	@mkdir -p $(STAMP) && touch $@

install: $(STAMP)/requirements

install-test: $(STAMP)/requirements-test

# `make lock` after editing pyproject.toml's dependencies: versions already locked stay unless
# the new ranges exclude them. Newer versions on purpose: make lock LOCK_ARGS=--upgrade (all) or
# LOCK_ARGS="--upgrade-package fastapi" (one). uv runs from a virtualenv of its own under .make/.
UV_VERSION := 0.13.9
UV := $(STAMP)/lock-tools/bin/uv
LOCK_ARGS ?=
COMPILE = $(UV) pip compile pyproject.toml --universal --python-version 3.11 --quiet \
	--custom-compile-command "make lock" $(LOCK_ARGS)

$(UV):
	$(PYTHON) -m venv $(STAMP)/lock-tools
	$(STAMP)/lock-tools/bin/python -m pip install --quiet uv==$(UV_VERSION)

lock: $(UV)
	$(COMPILE) -o requirements.txt
	$(COMPILE) --extra test -c requirements.txt -o requirements-test.lock

# ruff with the rules chosen in pyproject.toml ([tool.ruff.lint]); `make test` runs it first.
lint: install-test
	$(BIN)/ruff check .

migrate: install
	$(BIN)/python -m discount_deals migrate

seed: migrate
	@$(BIN)/python -m discount_deals has-products >/dev/null; status=$$?; \
	if [ $$status -eq 3 ]; then $(BIN)/python -m discount_deals seed-demo; \
	elif [ $$status -ne 0 ]; then exit $$status; else echo "Catalogue already has products: not seeding."; fi

check-config: install
	$(BIN)/python -m discount_deals check-config --host $(HOST)

# The launcher checks the configuration, migrates (a no-op check when current), seeds an empty
# catalogue, rebuilds the frontend only when its inputs changed, then serves with Granian.
run: install
	NPM_CONFIG_REGISTRY="$${NPM_CONFIG_REGISTRY:-$$(npm config get registry)}" \
	$(BIN)/python -m discount_deals serve --host $(HOST) --port $(PORT) --seed-demo-if-empty

dev: install
	NPM_CONFIG_REGISTRY="$${NPM_CONFIG_REGISTRY:-$$(npm config get registry)}" \
	$(BIN)/python -m discount_deals serve --dev --host $(HOST) --port $(PORT) --seed-demo-if-empty

chromium:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif [ "$$(id -u)" = "0" ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	else echo "Browser tests need Debian's chromium: run 'sudo apt-get install -y chromium' and retry." >&2; exit 1; fi

# PostgreSQL, Redis and nginx for the production smoke test (Debian packages). The packages' own
# services are not started (policy-rc.d while installing): the tests start throwaway servers.
prod-deps:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && [ -x /usr/bin/redis-server ] && [ -x /usr/sbin/nginx ]; then :; \
	elif [ "$$(id -u)" = "0" ]; then \
		policy=/usr/sbin/policy-rc.d; made=""; \
		if [ ! -e $$policy ]; then printf '#!/bin/sh\nexit 101\n' > $$policy && chmod +x $$policy && made=1; fi; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql redis-server nginx >/dev/null; \
		status=$$?; if [ -n "$$made" ]; then rm -f $$policy; fi; exit $$status; \
	else echo "The production smoke test needs PostgreSQL, Redis and nginx: run 'sudo apt-get install -y postgresql redis-server nginx' and retry." >&2; exit 1; fi

# axe-core for the browser tests' accessibility check, in a folder git ignores.
AXE_VERSION := 4.14.1
AXE_DIR := tests/e2e/.axe
$(AXE_DIR)/node_modules/axe-core/axe.min.js: | install-test
	mkdir -p $(AXE_DIR)
	echo '{"name": "axe-runner", "private": true}' > $(AXE_DIR)/package.json
	cd $(AXE_DIR) && npm install --no-audit --no-fund --silent axe-core@$(AXE_VERSION)

axe: $(AXE_DIR)/node_modules/axe-core/axe.min.js

# Two lanes at once (the machine has two cores, and the browser lane mostly waits on the browser
# and its network): the API on SQLite, then the services and the API on PostgreSQL, in the
# background with their output in test-results/services-lane.log (printed at the end); and the
# browser suite, the production smoke test, then the services on SQLite and the API files of
# API_IN_BROWSER_LANE on SQLite in the foreground. Each lane builds what it needs; only the
# browser lane touches .web/. Measured on 2 cores with the tests' fast password hashes
# (DD_PASSWORD_HASHING=fast, tests/conftest.py), in minutes: services 10.3 + 15.1, browser
# 19.1 + 1.4 + 2.8; the four files below (about 1.5) even them out.
API_IN_BROWSER_LANE := tests/api/test_products_facets.py tests/api/test_exports.py \
	tests/api/test_message_workers.py tests/api/test_login_burst.py
test: install-test lint chromium prod-deps axe
	@lane=$$(mktemp /tmp/dd-services-lane-XXXXXX.log); \
	( $(BIN)/python -m pytest -q -p no:cacheprovider tests/api $(addprefix --ignore=,$(API_IN_BROWSER_LANE)) && \
	   scripts/with-postgres.sh $(BIN)/python -m pytest -q -p no:cacheprovider tests/unit tests/api \
	 ) > $$lane 2>&1 & services=$$!; \
	export NPM_CONFIG_REGISTRY="$${NPM_CONFIG_REGISTRY:-$$(npm config get registry)}"; \
	$(BIN)/python -m pytest --durations=12 tests/e2e && DD_PROD_SMOKE=1 $(BIN)/python -m pytest -q -p no:cacheprovider tests/prod \
	  && $(BIN)/python -m pytest -q -p no:cacheprovider tests/unit $(API_IN_BROWSER_LANE); \
	browser=$$?; wait $$services; status=$$?; \
	echo "--- services lane (SQLite, then PostgreSQL): test-results/services-lane.log ---"; \
	mkdir -p test-results; cp $$lane test-results/services-lane.log; rm -f $$lane; \
	grep -v '^[.sx]*\( *\[ *[0-9]*%\]\)\?$$' test-results/services-lane.log | tail -n 200; \
	test $$browser -eq 0 -a $$status -eq 0

# The services and the API again on PostgreSQL (a throwaway cluster on a free port).
test-postgres: install-test
	scripts/with-postgres.sh $(BIN)/python -m pytest -q -p no:cacheprovider tests/unit tests/api

# PostgreSQL + Redis + two instances behind nginx, a browser journey through nginx with a worker
# killed and Redis restarted on the way (tests/prod; its own run: it rebuilds the frontend).
test-prod: install-test chromium prod-deps
	NPM_CONFIG_REGISTRY="$${NPM_CONFIG_REGISTRY:-$$(npm config get registry)}" \
	DD_PROD_SMOKE=1 $(BIN)/python -m pytest -q -p no:cacheprovider tests/prod

# Services and API only (no browser, no production build).
test-fast: install-test
	$(BIN)/python -m pytest tests/unit tests/api

clean:
	rm -rf .web .states $(STAMP) test-results .web-build.lock
