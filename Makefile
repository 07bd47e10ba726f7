# Every target creates or reuses .venv and installs what it needs itself.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo test bench lint clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade pip
	@$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	@$(BIN)/golfref run sample_matches/quickstart.yaml

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
