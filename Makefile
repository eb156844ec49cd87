# netrepro: every target installs what it needs first, so `make report` and
# `make test` work on a fresh Debian machine (as root) and are fast after that.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.netrepro-installed
CAMPAIGNS ?= $(wildcard data/raw/*/manifest.yaml)

.PHONY: setup system report pdf test test-layers test-types test-suite test-fast fuzz bench collect packets-data notebooks lab clean

setup: system $(STAMP)

system:
	@bash scripts/install-system.sh

# The first run downloads and installs netrepro's Python dependencies (about
# 175 packages, 1.2 GB in .venv: numpy, pandas, scipy, statsmodels, matplotlib, JupyterLab,
# Dask, DuckDB, ...) into .venv: minutes, depending on the network; pip names
# each package as it goes. After that it does nothing until pyproject.toml changes.
$(STAMP): pyproject.toml
	@echo "setup: installing netrepro and its Python dependencies into $(VENV) (first run: several minutes; once)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	set -o pipefail; $(BIN)/pip install --progress-bar off -e ".[test]" \
	  | { grep --line-buffered -E "^(Collecting|Successfully installed)" || true; }
	touch $(STAMP)
	@echo "setup: done"

report: setup
	$(BIN)/netrepro report

# Each page of the report (rebuilt first where its inputs changed) printed to
# reports/**/report.pdf by Debian's Chromium, headless, every folded part open.
pdf: report
	$(BIN)/python -m analysis.report.pdf reports

# Python keeps each module's bytecode in __pycache__/ (git ignores it) and pytest its
# assert-rewritten tests there: where the environment sets PYTHONDONTWRITEBYTECODE,
# every test worker, kernel and command run by a test compiled src/ and tests/ again on
# every run (some 8 s of CPU per pytest worker). The test targets write the caches.
KEEP_BYTECODE := PYTHONDONTWRITEBYTECODE=

# The tests run on several workers, each starting kernels, commands and simulation
# processes of its own: numpy's OpenBLAS starts a thread per core in every one of
# them, and those threads spin waiting for each other (lan-p2p's ANOVA tables:
# 13.8 s of CPU so on a busy machine, 1.0 s on one thread). One thread each.
ONE_BLAS_THREAD := OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1

# The tests run on a worker more than cores: the live campaigns wait on their tools' runs
# (a second each) and Chromium on its pages, leaving about a fifth of two workers' time idle.
# On 2 quiet cores a third worker took 364 s instead of 382 s; its contention once showed
# two real faults (a guest started while its collector was killed outlived it; a kernel
# slow to answer was never found ready), both mended, and nothing flaky since.
TEST_WORKERS := $(shell echo $$(( $$(nproc) + 1 )))

# The layers (import-linter) and the types (mypy) are checked beside the tests, not
# before them: one after the other they kept one core busy and the other idle for
# some 18 s on a fresh clone (mypy has no cache there). Each job's lines come out
# whole (--output-sync=line); make waits for all three and fails if any failed.
test: setup
	@$(MAKE) --no-print-directory -j3 --output-sync=line test-layers test-types test-suite

test-layers:
	$(BIN)/lint-imports

test-types:
	$(BIN)/mypy src/analysis

# The tests on TEST_WORKERS workers; --dist loadfile keeps each notebook (nbval) and
# each test file on one worker; --no-loadscope-reorder hands out the files longest
# first (tests/conftest.py's LONG_FIRST) instead of most tests first, so no worker
# idles at the end. -p pytest_fast_start, loaded before nbval, spares each pytest process
# jsonschema's IRI grammar (2 s of CPU; see that file).
test-suite:
	$(KEEP_BYTECODE) $(ONE_BLAS_THREAD) $(BIN)/python -m pytest -p pytest_fast_start -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

# The quick loop while working: no notebooks (nbval), no live network
# namespaces or tool runs, nothing marked slow; under a minute on two cores.
# --dist loadfile: a test file's module fixtures (a study's record, an
# ingested campaign) are set up on one worker, not on both. The "fast"
# Hypothesis profile: the fixed inputs of `make test`, a fifth as many (tests/budget.py).
# Without the nbval plugin (-p no:nbval, and the configured --nbval dropped): tests/
# holds no notebook, and importing it (nbformat, jsonschema's format checkers)
# cost each of the three processes 2 s of CPU.
FAST_TESTS := tests -o addopts=-ra -p no:nbval -m "not slow and not netns and not tools" -n 2 --dist loadfile -q
test-fast: setup
	$(KEEP_BYTECODE) $(ONE_BLAS_THREAD) HYPOTHESIS_PROFILE=fast $(BIN)/python -m pytest $(FAST_TESTS)

# Long fuzzing of every parser with mutated genuine outputs: the random "dev"
# Hypothesis profile (5000 inputs per parser; a failure prints the input that
# broke the parser, shrunk);
# `make test` runs the same tests derandomised with 200 inputs each.
fuzz: setup
	HYPOTHESIS_PROFILE=dev $(BIN)/python -m pytest tests/parsers/test_fuzz.py -q -s -W error::RuntimeWarning

# Re-execute the committed notebooks in place on the bundled data (what nbval checks),
# then save them as JupyterLab would (no run timings, Lab's kernel name), so that
# opening one in JupyterLab leaves git clean.
notebooks: setup
	cd notebooks && ../$(BIN)/jupyter nbconvert --to notebook --execute --inplace \
	  --ExecutePreprocessor.store_widget_state=False --ExecutePreprocessor.record_timing=False \
	  0*.ipynb papers/study.ipynb papers/00_overview.ipynb
	$(BIN)/python scripts/clean_notebooks.py notebooks/0*.ipynb notebooks/papers/*.ipynb

# JupyterLab on notebooks/, for a user or root (Jupyter refuses root without
# --allow-root, so it is passed only then). LAB_ARGS adds options, e.g.
# LAB_ARGS="--no-browser --port 8899"; LAB_IP=0.0.0.0 listens beyond this machine.
# jupyter/ holds the project's settings: no autosave, and saves without widget
# views, so running a notebook leaves git clean (jupyter/README.md).
LAB_IP ?= 127.0.0.1
lab: $(STAMP)
	JUPYTER_CONFIG_PATH=$(CURDIR)/jupyter$(if $(JUPYTER_CONFIG_PATH),:$(JUPYTER_CONFIG_PATH)) \
	  $(BIN)/jupyter lab --notebook-dir=notebooks --ip=$(LAB_IP) \
	  $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

# Speed figures, each with wall and CPU time and the core count: `netrepro --help`, a
# one-file parse, make test-fast, the report cold / warm / after one hypothesis edit
# (ingest included), then ingest, the readers and the simulations (benchmarks/run.py).
# `make test` is timed too with BENCH_MAKE_TEST=1 (it takes minutes).
bench: setup
	$(BIN)/python benchmarks/run.py

collect: setup
	$(BIN)/netrepro collect $(PLAN)

# A real D-ITG campaign of over 10^7 packets, every packet kept (plans/packets-large.yaml),
# for the per-packet benchmarks: about 10 minutes on two network namespaces (root),
# 1.7 GB under data/large/ (not in git). Run again, it finishes an interrupted recording.
LARGE := data/large/packets-large
packets-data: setup
	$(BIN)/netrepro collect plans/packets-large.yaml --out $(LARGE) $(if $(wildcard $(LARGE)/collect/plan.yaml),--resume)

clean:
	rm -rf $(VENV) data/processed/* reports/*
