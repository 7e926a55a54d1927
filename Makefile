# Discount Deals: `make run` serves the shop on $(PORT); `make test` runs every test.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
PORT ?= 3000
HOST ?= 0.0.0.0
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
STAMP := .make

export PATH := $(BIN):$(PATH)
export REFLEX_USE_NPM := 1
export REFLEX_TELEMETRY_ENABLED := false
export REFLEX_CHECK_LATEST_VERSION := false
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: help install migrate seed run test test-fast test-postgres chromium axe clean

help:
	@echo "make run    install, migrate, seed the demo catalogue if empty, serve on port $(PORT)"
	@echo "make test   install (with Chromium) and run every test"

$(BIN)/python:
	$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "Python 3.11+ is required" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)

# Reinstall only when requirements.txt changes.
$(STAMP)/requirements: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	@mkdir -p $(STAMP) && touch $@

install: $(STAMP)/requirements

migrate: install
	$(BIN)/python -m discount_deals migrate

seed: migrate
	@$(BIN)/python -m discount_deals has-products >/dev/null; status=$$?; \
	if [ $$status -eq 3 ]; then $(BIN)/python -m discount_deals seed-demo; \
	elif [ $$status -ne 0 ]; then exit $$status; else echo "Catalogue already has products: not seeding."; fi

run: seed
	NPM_CONFIG_REGISTRY="$${NPM_CONFIG_REGISTRY:-$$(npm config get registry)}" \
	$(BIN)/reflex run --env prod --backend-host $(HOST) --frontend-port $(PORT) --backend-port $(PORT)

chromium:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif [ "$$(id -u)" = "0" ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	else echo "Browser tests need Debian's chromium: run 'sudo apt-get install -y chromium' and retry." >&2; exit 1; fi

# axe-core for the browser tests' accessibility check, in a folder git ignores.
AXE_VERSION := 4.14.1
AXE_DIR := tests/e2e/.axe
$(AXE_DIR)/node_modules/axe-core/axe.min.js: | install
	mkdir -p $(AXE_DIR)
	echo '{"name": "axe-runner", "private": true}' > $(AXE_DIR)/package.json
	cd $(AXE_DIR) && npm install --no-audit --no-fund --silent axe-core@$(AXE_VERSION)

axe: $(AXE_DIR)/node_modules/axe-core/axe.min.js

test: install chromium axe
	NPM_CONFIG_REGISTRY="$${NPM_CONFIG_REGISTRY:-$$(npm config get registry)}" \
	$(BIN)/python -m pytest
	$(MAKE) --no-print-directory test-postgres

# The services and the API again on PostgreSQL (a throwaway cluster on a free port).
test-postgres: install
	scripts/with-postgres.sh $(BIN)/python -m pytest -q -p no:cacheprovider tests/unit tests/api

# Services and API only (no browser, no production build).
test-fast: install
	$(BIN)/python -m pytest tests/unit tests/api

clean:
	rm -rf .web .states $(STAMP) test-results
