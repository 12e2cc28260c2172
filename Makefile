# Two commands do all the set-up on a fresh machine (see README.md):
#   make quickstart   install, then run a real tournament of the bundled bots on arena.db
#   make test         install with the test extras, then run the whole test suite (pytest)
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install install-test js quickstart test bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install -q -e .

install-test: $(BIN)/python
	$(BIN)/pip install -q -e '.[test,cluster]'

# The JavaScript example bot needs its zeromq package; skipped (and its test skipped) without npm.
js:
	@if command -v npm >/dev/null 2>&1; then cd bots/js && npm ci --silent --no-audit --no-fund; \
	else echo "npm not found: the JavaScript bot and its test are skipped"; fi

quickstart: install
	$(BIN)/arena run tournaments/quickstart-reactor.toml

test: install-test js
	$(BIN)/python -m pytest -q

bench: install
	$(BIN)/arena bench
