# Two commands do all the set-up on a fresh machine (see README.md):
#   make quickstart   install, then run a real tournament of the bundled bots on arena.db
#                     (and say the one command that shows the results in a browser)
#   make test         install with the test extras, then run the test suite (pytest)
# and `make perf` runs the timing and strength tests that `make test` leaves out.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Test files run in parallel: most of the suite waits on bots, timeouts and processes.
WORKERS ?= 4

.PHONY: install install-test js bytecode quickstart test perf bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# Installed once, and again only when pyproject.toml changes (the stamp files say when).
# PYTHONWARNINGS=ignore: setuptools warns about every editable install (folders that share the
# package's name); that is how this project is meant to be installed, so the warning says nothing.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	PYTHONWARNINGS=ignore $(BIN)/pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	PYTHONWARNINGS=ignore $(BIN)/pip install -q -e '.[test,cluster]'
	touch $@ $(VENV)/.installed $(VENV)/.installed-web

install: $(VENV)/.installed

# Compiled once here, because many shells (this project's CI machines among them) set
# PYTHONDONTWRITEBYTECODE=1: then every process -- each `arena` command, each worker, each bot --
# compiled arena's sources again on start-up (measured: `import arena.tournament` 0.62 s of CPU
# without the .pyc files, 0.42 s with them).  Python checks each file against its source, so an
# edited module is compiled afresh, never run stale.
bytecode: | $(BIN)/python
	@$(BIN)/python -m compileall -q -j 0 arena protocol

install-test: $(VENV)/.installed-test

# The JavaScript example bot needs its zeromq package; skipped (and its test skipped) without npm.
js:
	@if command -v npm >/dev/null 2>&1; then cd bots/js && npm ci --silent --no-audit --no-fund; \
	else echo "npm not found: the JavaScript bot and its test are skipped"; fi

$(VENV)/.installed-web: pyproject.toml | $(BIN)/python
	PYTHONWARNINGS=ignore $(BIN)/pip install -q -e '.[web]'
	touch $@ $(VENV)/.installed

quickstart: install $(VENV)/.installed-web bytecode
	$(BIN)/arena run tournaments/quickstart-reactor.toml
	@echo
	@echo "See the results in a browser: $(BIN)/arena serve   (then open http://127.0.0.1:8000)"

# worksteal: a worker that runs out of tests takes queued ones from the others, so that a few
# long tests (a minute each beside other load) do not end the run on one worker while three idle.
test: install-test js bytecode
	$(BIN)/python -m pytest -q -n $(WORKERS) --dist worksteal

perf: install-test bytecode
	$(BIN)/python -m pytest -q -m perf

bench: install bytecode
	$(BIN)/arena bench
