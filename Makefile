# rlark-widgets developer tasks.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PORT   ?= 8866

.PHONY: app lab test check docs bench fuzz fmt clean oracle

# RLinf 0.3.0 from the package index, test-only: the differential tests run its own placement
# code (tests/oracle/harness.py) and compare our expansion with it.
ORACLE_VENV   := .oracle-venv
ORACLE_STAMP  := $(ORACLE_VENV)/.installed

.DEFAULT_GOAL := test

$(VENV): $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -U pip
	$(BIN)/pip install -e '.[dev]'
	touch $(STAMP)

# rlark-app (rlark_widgets/ui/serve.py): Voila on 127.0.0.1 with a token ($$RLARK_APP_TOKEN or a
# fresh one), the app's own Host and Origin only, and its offline template; it prints the URL.
app: $(STAMP)
	$(BIN)/python -m rlark_widgets.ui.serve notebooks/app.ipynb --port=$(PORT)

# JupyterLab on the teaching notebooks, with Jupyter's own token (as root it needs --allow-root).
lab: $(STAMP)
	$(BIN)/jupyter lab notebooks $$( [ "$$(id -u)" = 0 ] && echo --allow-root )

# lint-imports keeps the layers of pyproject.toml's [tool.importlinter]; mypy checks every
# signature. The fuzz tests run apart, under an address-space limit: a runaway input fails its
# test, not the machine.
test: $(STAMP) oracle
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python -m pytest tests notebooks --nbval-lax --ignore=tests/test_fuzz.py --durations=40
	ulimit -v 8000000 && $(BIN)/python -m pytest tests/test_fuzz.py

# The inner loop (about 2 minutes on two cores): lint, types, layers and the fast tests (no
# Ray cluster, no browser, no Voila server, no notebook, no RLinf oracle, no wire-fault round,
# no test over 5 s: those are marked slow and run in make test).
check: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python -m pytest tests -q -x -n 2 -m "not slow and not browser" \
		--ignore=tests/test_fuzz.py --ignore=tests/test_faults_wire.py --deselect tests/test_oracle_corpus.py \
		--deselect tests/test_oracle_differential.py

# The book: every teaching notebook executed once, in English and Chinese, with the FAQ maps as
# index, built into docs/_build/site (a failed cell, a missing figure or a broken link fails it).
docs: $(STAMP)
	$(BIN)/python docs/bilingual.py --check
	$(BIN)/python docs/build_book.py

bench: $(STAMP) oracle
	$(BIN)/python benchmarks/run_all.py

# 10,000 examples per bad-input target (tests/test_fuzz.py), with the count printed per target,
# including the differential round trip (what `check` passes is what `submit` stores on the
# Kubernetes emulator, byte for byte after normalisation), and every argv a subcommand can be
# given; then every Kubernetes command through every wire fault (tests/test_faults_wire.py); the
# long rounds of tests/test_output_escaping.py and the other generated security tests.
# The memory cap turns a runaway allocation into a test failure instead of an OOM kill.
# Then 2,000 random configs against RLinf's own code (ORACLE_EXAMPLES=N for more), and the
# app's access guard over 10,000 generated Hosts and Origins (1,250 per round on its server).
fuzz: $(STAMP) oracle
	ulimit -v 4000000 && HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest tests/test_fuzz.py \
		-q -p no:cacheprovider
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest tests/test_output_escaping.py \
		-q -p no:cacheprovider
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest tests/test_faults_wire.py -q -p no:cacheprovider
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest tests/test_oracle_differential.py \
		-q -p no:cacheprovider
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest tests/test_app_auth.py -q -p no:cacheprovider
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest tests/test_shell_injection.py \
		-q -p no:cacheprovider
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest tests/test_output_files.py \
		tests/test_local_removal.py tests/test_k8s_ownership.py tests/test_mount_rules.py \
		-q -p no:cacheprovider
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest tests/test_secret_exits.py \
		tests/test_secret_app_texts.py tests/test_environment_references.py \
		tests/test_registry_values.py -q -p no:cacheprovider

oracle: $(ORACLE_STAMP)

$(ORACLE_STAMP):
	$(PYTHON) -m venv $(ORACLE_VENV)
	$(ORACLE_VENV)/bin/pip install -q --no-deps rlinf==0.3.0
	$(ORACLE_VENV)/bin/pip install -q ray==2.47.1 hydra-core==1.3.8 omegaconf==2.3.1 pyyaml
	touch $(ORACLE_STAMP)

fmt: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) $(ORACLE_VENV) build dist docs/_build *.egg-info .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -name .ipynb_checkpoints -type d -prune -exec rm -rf {} +
