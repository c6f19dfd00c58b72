# Two entry points for a fresh machine: `make demo` and `make test` (see README).
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

$(BIN)/warpsim: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(BIN)/warpsim

.PHONY: install demo test lint bench
install: $(BIN)/warpsim

demo: install
	$(BIN)/warpsim sim examples/vecadd/kernelslist.g --gpu QV100 --json demo-result.json

lint: install
	$(BIN)/ruff check src tests benchmarks

test: install lint
	# one worker per core (pytest-xdist): 5 min instead of 8 on 2 cores; plain `pytest` stays serial
	$(BIN)/pytest -n auto --maxprocesses 4

bench: install
	$(BIN)/warpsim bench
