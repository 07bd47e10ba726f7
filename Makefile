# Every target creates or reuses .venv and installs what it needs itself.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# Two installs into the one .venv: what running a match needs (golfref and its dependencies, for
# `make demo`), and everything (the test, cluster and rl extras: the test suite, `make install`).
# The full one includes the first, and marks both done.
RUN_STAMP := $(VENV)/.installed-run
STAMP     := $(VENV)/.installed

.PHONY: install samples demo tournament-demo test check compiled bench ladder lint clean

# The oldest Python golfref runs on, read from requires-python in pyproject.toml. A .venv made
# with an older python is rebuilt, not reused: the check runs at every make (the stamp alone
# would keep such a .venv forever).
MIN_PYTHON := $(shell sed -n 's/^requires-python *= *">= *\([0-9.]*\)".*/\1/p' pyproject.toml)
PYTHON_OK = $(1) -c 'import sys; sys.exit(sys.version_info[:2] < tuple(map(int, "$(MIN_PYTHON)".split("."))))' 2>/dev/null
VENV_OK := $(shell $(call PYTHON_OK,$(BIN)/python) && echo yes)

# setuptools prints a "Please be careful with folders..." block at every editable install of
# a package that maps a folder from elsewhere (golfref.schemas is the top-level schemas/):
# information only, filtered out of the build backend's warnings.
PIP := PYTHONWARNINGS='ignore:Editable installation:UserWarning' $(BIN)/python -m pip

# The .venv itself, made (or remade) with a Python golfref runs on; each install runs it first.
MAKE_VENV = \
	if [ -d $(VENV) ] && ! $(call PYTHON_OK,$(BIN)/python); then \
	  version=$$($(BIN)/python -V 2>/dev/null) || version="no working python"; \
	  echo "make: $(VENV) has $$version but golfref needs Python $(MIN_PYTHON) or newer: rebuilding it with $(PYTHON)"; \
	  rm -rf $(VENV); \
	fi; \
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || exit 1; \
	$(call PYTHON_OK,$(BIN)/python) || { \
	  echo "make: $(PYTHON) is $$($(PYTHON) -V 2>&1) but golfref needs Python $(MIN_PYTHON) or newer: run make PYTHON=python$(MIN_PYTHON) (or newer)"; \
	  rm -rf $(VENV); exit 1; }; \
	$(PIP) install --quiet --upgrade pip

$(RUN_STAMP): pyproject.toml $(if $(VENV_OK),,FORCE)
	@$(MAKE_VENV)
	@$(PIP) install --quiet -e .
	@touch $(RUN_STAMP)

$(STAMP): pyproject.toml $(if $(VENV_OK),,FORCE)
	@$(MAKE_VENV)
	@$(PIP) install --quiet -e '.[test,cluster,rl]'
	@touch $(RUN_STAMP) $(STAMP)

FORCE:

install: $(STAMP)

# The Python kit's golfbot.py lives in the package (golfref/kit/golfbot.py: an in-process policy
# sees the kit's own View) and is generated from there into the starter kit a bot author copies
# and beside the sample greedy bot: a bot's files are its folder (a sandbox shows it nothing else,
# and its fingerprint covers them), so neither can import it from golfref. tests/test_kits.py
# checks that the three are the same.
KIT_SOURCE := golfref/kit/golfbot.py
KIT_COPIES := kits/python/golfbot.py sample_matches/bots/golfbot.py
$(KIT_COPIES): $(KIT_SOURCE)
	@cp $< $@

samples: $(KIT_COPIES)

# A match needs golfref and its dependencies only, not the extras the tests need. The demos play
# samples from the repository's root and write into its logs/ and tournaments/sample, not beside
# the configs: sample_matches/ is package data, whose every file `golfref examples` and the wheel
# of `golfref init` would carry.
demo: $(RUN_STAMP) samples
	@$(BIN)/golfref run sample_matches/quickstart.yaml --log 'logs/{match_id}.json'

# A small tournament of the sample bots (docs/TOURNAMENTS.md); run again, it resumes. Its bots are
# `python3 ...`, sandboxed where bubblewrap is, on the installation of whatever python3 PATH finds
# (docs/SANDBOX.md, "Which Python a sandboxed bot runs").
tournament-demo: $(RUN_STAMP) samples
	@$(BIN)/golfref tournament sample_matches/tournament.yaml --results tournaments/sample

# The compiled build (docs/PERFORMANCE.md: "The compiled build"): a copy of the package in build/compiled
# whose hot modules, [tool.golfref.mypyc] in pyproject.toml, mypyc compiled. Only the tests and
# the bench put it first on sys.path: the .venv's editable golfref stays pure, and no compiled
# module ever sits beside the sources it would shadow. A change to any file of the package
# rebuilds the whole copy, so it never runs stale code. Without a C compiler or the Python
# headers it says why in one line, builds nothing, and the tests of the compiled build skip.
COMPILED := build/compiled
PACKAGE_FILES := $(shell find golfref schemas kits sample_matches -type f ! -path '*/__pycache__/*' ! -name '*.py[co]' 2>/dev/null)
MYPYC = $(BIN)/python -c 'import setup, sys; $(1)'

$(COMPILED)/.built: $(STAMP) pyproject.toml setup.py $(PACKAGE_FILES)
	@rm -rf $(COMPILED) && mkdir -p $(COMPILED)
	@reason=$$($(call MYPYC,print(setup.missing_toolchain() or ""))) || exit 1; \
	if [ -n "$$reason" ]; then \
	  echo "$$reason" > $(COMPILED)/UNAVAILABLE; \
	  echo "make compiled: $$reason: no compiled build, and its tests skip"; exit 0; \
	fi; \
	$(PIP) install --quiet $$($(call MYPYC,print(*setup.mypyc_settings()["requires"]))) || exit 1; \
	$(BIN)/python -c 'import shutil; skip = shutil.ignore_patterns("__pycache__", "*.py[co]", "*.so"); \
	  shutil.copytree("golfref", "$(COMPILED)/golfref", ignore=skip); \
	  shutil.copytree("schemas", "$(COMPILED)/golfref/schemas", ignore=skip); \
	  shutil.copytree("kits", "$(COMPILED)/golfref/kits", ignore=skip); \
	  shutil.copytree("sample_matches", "$(COMPILED)/golfref/samples", ignore=skip)' || exit 1; \
	modules=$$($(call MYPYC,print(*setup.mypyc_settings()["modules"]))) || exit 1; \
	echo "make compiled: mypyc $$modules (into $(COMPILED))"; \
	cd $(COMPILED) && $(abspath $(BIN))/mypyc --config-file $(abspath pyproject.toml) $$modules > mypyc.log 2>&1 \
	  || { cat mypyc.log; echo "make compiled: mypyc failed (above)"; exit 1; }; \
	touch .built

compiled: $(COMPILED)/.built

# The whole suite against the pure package, then the tests of the compiled modules (engine,
# rules and the config that feeds them, scoring, view, golden games, sample logs and their
# replay) against the compiled build.
COMPILED_TESTS := tests/test_cards.py tests/test_rules.py tests/test_config.py tests/test_scoring.py tests/test_engine.py \
	tests/test_view.py tests/test_golden.py tests/test_replay_validate.py tests/test_properties.py tests/test_audit.py \
	tests/test_pretty.py tests/test_log_validity.py
PYTEST = $(BIN)/python -m pytest $(1); rc=$$?; if [ $$rc -eq 5 ]; then echo "no tests ran: pytest $(1)"; exit 1; fi; \
	[ $$rc -eq 0 ] || exit $$rc

# pytest-xdist spreads the tests over $(TEST_WORKERS) processes: most of a process test's time
# is spent waiting for the bots it starts, so more workers than cores keep both cores busy.
TEST_WORKERS ?= 4

test: $(STAMP) compiled samples
	@$(call PYTEST,-n $(TEST_WORKERS))
	@$(call PYTEST,--compiled -n 2 $(COMPILED_TESTS))

# The fast part while working: every test not marked `process` (no bot, browser, build or
# sandbox), where a test that starts a process anyway fails, naming it (tests/conftest.py).
check: $(STAMP) samples
	@GOLFREF_TEST_NO_PROCESSES=1 $(call PYTEST,-m "not process" -n 2)

# The engine (and the referee) once more with the compiled build, in a process of its own.
# bench/env.py measures PettingZoo's own card environments beside golfref's: they need rlcard.
bench: $(STAMP) compiled
	@$(PIP) install --quiet 'pettingzoo[classic]' || echo "bench: pettingzoo[classic] did not install: the env section says so"
	@$(BIN)/python -m bench
	@if [ -f $(COMPILED)/.built ]; then $(BIN)/python -m bench --compiled engine referee env; \
	else echo "bench: the compiled build: skipped: $$(cat $(COMPILED)/UNAVAILABLE)"; fi

# The ladder of built-in opponents measured (docs/OPPONENTS.md, bench/ladder.yaml): duplicate-deal
# tournaments of each pair, resumed from tournaments/ladder/ when run again; up to 30 minutes here (bench/ladder.yaml).
# LADDER_ARGS="--deal-sets 4" for a quick look, "--docs docs/OPPONENTS.md" to rewrite its table.
ladder: $(STAMP)
	@nice -n 10 $(BIN)/python -m bench.ladder $(LADDER_ARGS)

lint: $(STAMP)
	@$(BIN)/python -m pip install --quiet mypy ruff types-PyYAML types-jsonschema
	@$(BIN)/python -m ruff check golfref tests
	@$(BIN)/python -m mypy golfref

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
