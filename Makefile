# `make test` and `make run` set everything up on a fresh machine (Python >= 3.11).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup test lint bench clean run browser messages

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check engine app alembic tests tools
	$(BIN)/mypy engine app tools

# the browser tests drive Debian's Chromium (Playwright's own browser download is not used)
browser:
	@test -x /usr/bin/chromium || { \
	    SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO="sudo"; \
	    $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium; }

test: lint browser
	$(BIN)/python -m pytest -q

# serve the game: apply migrations, then uvicorn on HOST:PORT (default 127.0.0.1:8000)
run: $(STAMP)
	$(BIN)/alembic upgrade head
	$(BIN)/uvicorn --factory app.main:app_from_env --host $${HOST:-127.0.0.1} --port $${PORT:-8000} --proxy-headers

# re-extract locales/messages.pot and merge it into every language's .po (no .mo to build:
# catalogues are compiled in memory when the app first uses a language)
messages: $(STAMP)
	$(BIN)/python -m app.i18n

# engine speed, then a bounded load test of the web app on loopback (docs/benchmarks.md)
bench: $(STAMP)
	$(BIN)/python -m engine.bench
	$(BIN)/python -m tools.loadtest

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
