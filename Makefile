# Two commands for a fresh machine that has only python3:
#   make run    creates .venv, installs, migrates and serves (SQLite in var/pbm.db)
#   make test   creates .venv with the test extras and runs the whole suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

run: $(BIN)/.installed
	$(BIN)/pbm db upgrade
	$(BIN)/pbm serve

test: $(BIN)/.installed
	$(BIN)/python -m pytest

lint: $(BIN)/.installed
	$(BIN)/ruff check pbm tests benchmarks migrations

bench: $(BIN)/.installed
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .hypothesis
