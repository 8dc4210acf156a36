# rlark-widgets developer tasks.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PORT   ?= 8866

.PHONY: app test bench fuzz fmt clean

.DEFAULT_GOAL := test

$(VENV): $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -U pip
	$(BIN)/pip install -e '.[dev]'
	touch $(STAMP)

app: $(STAMP)
	@echo "rlark-widgets app: open http://127.0.0.1:$(PORT)/"
	$(BIN)/voila notebooks/app.ipynb --no-browser --port=$(PORT) --Voila.ip=127.0.0.1

# lint-imports keeps the layers of pyproject.toml's [tool.importlinter]; mypy checks every
# signature. The fuzz tests run apart, under an address-space limit: a runaway input fails its
# test, not the machine.
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python -m pytest tests notebooks --nbval-lax --ignore=tests/test_fuzz.py
	ulimit -v 8000000 && $(BIN)/python -m pytest tests/test_fuzz.py

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

# 10,000 examples per bad-input target (tests/test_fuzz.py), with the count printed per target.
# The memory cap turns a runaway allocation into a test failure instead of an OOM kill.
fuzz: $(STAMP)
	ulimit -v 4000000 && HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest tests/test_fuzz.py \
		-q -p no:cacheprovider

fmt: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -name .ipynb_checkpoints -type d -prune -exec rm -rf {} +
