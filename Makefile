# Every target creates or reuses .venv and installs what it needs itself.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo tournament-demo test bench lint clean

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

$(STAMP): pyproject.toml $(if $(VENV_OK),,FORCE)
	@if [ -d $(VENV) ] && ! $(call PYTHON_OK,$(BIN)/python); then \
	  version=$$($(BIN)/python -V 2>/dev/null) || version="no working python"; \
	  echo "make: $(VENV) has $$version but golfref needs Python $(MIN_PYTHON) or newer: rebuilding it with $(PYTHON)"; \
	  rm -rf $(VENV); \
	fi
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(call PYTHON_OK,$(BIN)/python) || { \
	  echo "make: $(PYTHON) is $$($(PYTHON) -V 2>&1) but golfref needs Python $(MIN_PYTHON) or newer: run make PYTHON=python$(MIN_PYTHON) (or newer)"; \
	  rm -rf $(VENV); exit 1; }
	@$(PIP) install --quiet --upgrade pip
	@$(PIP) install --quiet -e '.[test,cluster]'
	@touch $(STAMP)

FORCE:

install: $(STAMP)

demo: $(STAMP)
	@$(BIN)/golfref run sample_matches/quickstart.yaml

# A small tournament of the sample bots (docs/TOURNAMENTS.md); run again, it resumes.
TOURNAMENT ?= sample_matches/tournament.yaml
tournament-demo: $(STAMP)
	@$(BIN)/golfref tournament $(TOURNAMENT)

test: $(STAMP)
	@$(BIN)/python -m pytest; rc=$$?; if [ $$rc -eq 5 ]; then echo "no tests ran"; exit 1; fi; exit $$rc

bench: $(STAMP)
	@$(BIN)/python -m bench

lint: $(STAMP)
	@$(BIN)/python -m pip install --quiet mypy ruff types-PyYAML types-jsonschema
	@$(BIN)/python -m ruff check golfref tests
	@$(BIN)/python -m mypy golfref

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
