# The documented way to do things. `make run` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint format bench bench-change bench-engine bench-league bench-load bench-ablation bench-tournament bench-ratings messages clean

# One stamp per requirements file, so that each target installs what it needs and no more:
# `make run` only what the app runs on; `make test` (and lint) also the test tools; the
# benchmarks also their load generator.
$(PY):
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11 or newer is needed"'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.installed: requirements.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.test-installed: requirements-test.txt requirements.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements-test.txt
	touch $@

$(VENV)/.bench-installed: requirements-bench.txt requirements-test.txt requirements.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements-bench.txt
	touch $@

run: $(VENV)/.installed
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_demo
	@echo ""
	@echo "  The digital lei runs at http://$(HOST):$(PORT)/"
	@echo ""
	$(PY) manage.py runserver $(HOST):$(PORT)

# The suite on three workers (pytest-xdist) on a two-core machine: a browser test spends much
# of its time waiting for its page, so a third worker fills the cores (the whole suite on
# PostgreSQL, 2026-11-29, quiet two-core EPYC: 9 min 37 s on three, 10 min 52 s on two). Each
# worker runs a Chromium, a gunicorn of two workers and a database of its own in the browser
# tests. TEST_WORKERS=0 runs in one process.
TEST_WORKERS ?= 3
test: $(VENV)/.test-installed
	$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

lint: $(VENV)/.test-installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.test-installed
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench-engine: $(VENV)/.bench-installed
	$(PY) bench/engine.py --write BENCHMARKS.md

# The league pages against a big club in PostgreSQL (a database of its own, built once):
# make bench-league BENCH_DATABASE_URL=postgres://user@host:5432/toepen_bench
BENCH_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/toepen_bench
bench-league: $(VENV)/.bench-installed
	$(PY) bench/league.py --database-url $(BENCH_DATABASE_URL) --write BENCHMARKS.md

# The app under gunicorn against the same database, driven over loopback by bench/loadgen.py:
# each request type against a bare view, the mixed Friday night, and two instances behind nginx
# (apt-get install nginx). Bounded in time; about ten minutes. Not part of `make test`.
bench-load: $(VENV)/.bench-installed
	$(PY) bench/load.py --database-url $(BENCH_DATABASE_URL) --write BENCHMARKS.md $(LOAD_ARGS)

# The cost of one change (a tap and its drawing) beside its floor and beside 71a9134, in one run
# (bench/change.py; BENCHMARKS.md, "The cost of a change").
bench-change: $(VENV)/.bench-installed
	$(PY) bench/change.py --database-url $(BENCH_DATABASE_URL) $(CHANGE_ARGS)

# The toernooi: the draw's most and extra meetings against a draw by lot over 520 evenings, and the
# standings of a 100-player, 6-series tournament (played in a transaction that is rolled back).
bench-tournament: $(VENV)/.bench-installed
	$(PY) bench/tournament.py --database-url $(BENCH_DATABASE_URL) --write BENCHMARKS.md

bench-ratings: $(VENV)/.bench-installed
	$(PY) bench/ratings.py --write BENCHMARKS.md

# What each own speed mechanism saves (BENCHMARKS.md, "Ablation"), on the league's database:
# three passes of five processes, about eleven minutes; prints the table (written in by hand).
ABLATION_OUT ?= /tmp/toepen-ablation.json
bench-ablation: $(VENV)/.bench-installed
	rm -f $(ABLATION_OUT)
	BENCH_DATABASE_URL=$(BENCH_DATABASE_URL) $(PY) bench/ablation.py --out $(ABLATION_OUT)
	$(PY) bench/ablation.py --table --out $(ABLATION_OUT)

bench: bench-engine bench-league bench-load bench-ablation bench-tournament bench-ratings

messages: $(VENV)/.installed
	$(PY) manage.py makemessages -l nl -l en -l de --no-obsolete --ignore=.venv --ignore=staticfiles
	$(PY) manage.py compilemessages --ignore=.venv

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache
