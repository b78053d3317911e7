# `make test` and `make run` set everything up on a fresh machine (Python >= 3.11).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# every package, with the hashes of its files: the same set on every machine (make lock)
LOCK := requirements-test.lock
RUNTIME_LOCK := requirements.lock
COMPILE := $(BIN)/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	--no-emit-index-url --no-emit-find-links

.PHONY: setup test lint bench clean run browser messages lock audit retention

setup: $(STAMP)

# the locked set only (hashes checked, nothing resolved), then this project on top of it
$(STAMP): pyproject.toml $(LOCK)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

# after a change of pyproject.toml's dependencies: resolve again, newest allowed versions
# (the runtime lock, for the Docker image, takes the test lock's versions)
lock: $(STAMP)
	$(COMPILE) --extra test -o $(LOCK) pyproject.toml
	$(COMPILE) --all-build-deps -c $(LOCK) -o $(RUNTIME_LOCK) pyproject.toml

# known vulnerabilities in the locked set (pip-audit; tools/audit.py says what it could check)
audit: $(STAMP)
	$(BIN)/python -m tools.audit $(LOCK)

# delete anonymous players and unfinished games past RETENTION_DAYS (the server also does it)
retention: $(STAMP)
	$(BIN)/python -m app.retention

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
	$(BIN)/uvicorn --factory app.main:app_from_env --host $${HOST:-127.0.0.1} --port $${PORT:-8000} \
	    --proxy-headers --forwarded-allow-ips="$${FORWARDED_ALLOW_IPS:-127.0.0.1}"

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
