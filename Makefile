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

.PHONY: setup test lint bench clean run browser messages pot catalogues lock audit retention

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

# the suite on every core (pytest-xdist; TEST_WORKERS=0 runs it in this one process); an idle
# worker takes tests from a busy one's queue, so the long browser games spread out
TEST_WORKERS ?= auto
test: lint browser catalogues
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist worksteal

# serve the game: apply migrations, then uvicorn on HOST:PORT (default 127.0.0.1:8000)
run: $(STAMP) catalogues
	$(BIN)/alembic upgrade head
	$(BIN)/uvicorn --factory app.main:app_from_env --host $${HOST:-127.0.0.1} --port $${PORT:-8000} \
	    --proxy-headers --forwarded-allow-ips="$${FORWARDED_ALLOW_IPS:-127.0.0.1}" --timeout-keep-alive 75 \
	    --http app.protocol:GuardedHttpToolsProtocol

# the catalogues, with Babel's own commands.  Keywords beyond pybabel's defaults: N_ marks a
# message translated where it is shown, NP_ one with a plural form (engine/rules.py, app/)
PYBABEL := $(BIN)/pybabel
POT ?= locales/messages.pot
EXTRACT := -F babel.cfg -k N_ -k NP_:1,2 --add-comments=Translators: --strip-comment-tags \
	--no-location --sort-output --width=100 --project=hearts --version=1.0
MO := $(patsubst %.po,%.mo,$(wildcard locales/*/LC_MESSAGES/messages.po))

# re-extract locales/messages.pot, merge it into every language's .po (English, the source
# language, gets its messages as they are) and compile them
messages: $(STAMP) pot
	$(PYBABEL) update -i $(POT) -d locales -D messages --no-fuzzy-matching --ignore-obsolete --width=100
	$(BIN)/python -m tools.english_catalogue
	$(MAKE) --no-print-directory catalogues

# only the extraction (the i18n test writes its own POT=… to compare with the committed one)
pot:
	$(PYBABEL) --quiet extract $(EXTRACT) -o $(POT) .

# the compiled .mo files the app reads (built from the committed .po files, not committed)
catalogues: $(MO)

%.mo: %.po | $(STAMP)
	$(PYBABEL) compile --statistics -i $< -o $@

# engine speed, then a bounded load test of the web app on loopback (docs/benchmarks.md)
bench: $(STAMP)
	$(BIN)/python -m engine.bench
	$(BIN)/python -m tools.loadtest

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
