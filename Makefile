# Durable agents on Temporal. `make` (or `make help`) lists the targets; needs only python3 (3.11+) and make.
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TYPED := workflows activities api llm runtime models stores imaging worker.py deploy tests

# Where the embedded stack listens and keeps its files; `make run API_PORT=9000` overrides a default, and so
# does the environment. A key that `.env` sets is left to `.env`: exported from here, the default would beat
# it, since settings rank the environment above `.env`.
DOTENV_KEYS := $(shell sed -n 's/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]]*=.*/\2/p' .env 2>/dev/null | tr a-z A-Z)
define stack_default
ifeq ($$(filter $(1),$$(DOTENV_KEYS)),)
export $(1) ?= $(2)
endif
endef
$(eval $(call stack_default,TEMPORAL_PORT,7233))
$(eval $(call stack_default,TEMPORAL_UI_PORT,8233))
$(eval $(call stack_default,API_PORT,8000))
$(eval $(call stack_default,DATA_DIR,./data))

.PHONY: help
help: ## Show this help
	@echo "Usage: make [target] [VAR=value ...]"
	@echo "Targets:"
	@awk '/^[a-zA-Z0-9_-]+:.*##/ { \
		match($$0, /## .*/); target = $$1; sub(/:.*/, "", target); \
		printf "  \033[36m%-10s\033[0m %s\n", target, substr($$0, RSTART + 3); \
	}' $(MAKEFILE_LIST)
	@echo "Variables (the stack's ports and data dir; (.env) = left to .env):"
	@echo "  TEMPORAL_PORT=$(or $(TEMPORAL_PORT),(.env)) TEMPORAL_UI_PORT=$(or $(TEMPORAL_UI_PORT),(.env))" \
		"API_PORT=$(or $(API_PORT),(.env)) DATA_DIR=$(or $(DATA_DIR),(.env))"
	@echo "  PYTEST_ARGS='...' is passed to pytest by 'make test' and 'make test-fast'; TEST_WORKERS=$(TEST_WORKERS) processes run them"

$(BIN)/pip:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "error: $(PYTHON) is older than 3.11; run e.g. 'make PYTHON=python3.11 ...'"; exit 1; }
	$(PYTHON) -m venv $(VENV)

# The stamp makes a second `make run` skip pip; editing pyproject.toml reinstalls.
$(VENV)/.installed: pyproject.toml | $(BIN)/pip
	$(BIN)/pip install -e '.[dev]'
	@touch $@

.PHONY: install
install: $(VENV)/.installed ## Create .venv and install the project with its dev tools (only when needed)

.PHONY: run
run: install ## Run the whole embedded stack: Temporal dev server (SQLite in DATA_DIR), worker, gateway
	$(BIN)/python -m deploy.stack

.PHONY: run-scaled
run-scaled: install ## Run the scale topology on one machine: PostgreSQL, an S3 server, 2 workers and a gateway, no shared disk
	$(BIN)/python -m deploy.scaled

.PHONY: worker
worker: install ## Run only the worker, against an already running Temporal at TEMPORAL_HOST:TEMPORAL_PORT
	$(BIN)/python worker.py

.PHONY: gateway
gateway: install ## Run only the gateway (FastAPI on API_HOST:API_PORT)
	$(BIN)/python -m api.server

# The suite runs on TEST_WORKERS pytest-xdist processes (`make test TEST_WORKERS=0` runs it in this one); each test
# goes to whichever is free, a module sharing a costly fixture stays on one (tests/conftest.py). Many tests wait on
# a model's simulated latency, a retry gap or a process's start, so more processes than cores keep the cores busy.
TEST_WORKERS ?= 4
PARALLEL = -n $(TEST_WORKERS) --dist loadgroup
FAST_TESTS = tests/unit tests/workflows tests/llm tests/simulator tests/weaviate_double

.PHONY: test
test: install ## Run the whole test suite (what CI runs), slowest tests last; pass pytest options with PYTEST_ARGS='-x -k chat'
	$(BIN)/pytest $(PARALLEL) --durations=25 $(PYTEST_ARGS)

.PHONY: test-fast
test-fast: install ## The inner loop: unit, workflow, replay, LLM client and simulator tests (no stack, browser or gateway)
	$(BIN)/pytest $(PARALLEL) -m "not e2e and not toolchain" $(FAST_TESTS) $(PYTEST_ARGS)

.PHONY: test-live
test-live: install ## Run the family tests (tests/live) against the real model LLM_PROVIDER and its key configure
	$(BIN)/pytest --live -m live -rs tests/live $(PYTEST_ARGS)

.PHONY: lint
lint: install ## Check: ruff check, ruff format --check, mypy (strict, code and tests)
	$(BIN)/ruff check
	$(BIN)/ruff format --check
	$(BIN)/mypy $(TYPED)

.PHONY: format
format: install ## Apply ruff's fixes and format the code
	$(BIN)/ruff check --fix-only
	$(BIN)/ruff format

.PHONY: histories
histories: install ## Record the committed workflow histories again (when, and when never: docs/durable-changes.md)
	$(BIN)/python -m tests.histories.record tests/fixtures/histories

.PHONY: clean
clean: ## Remove .venv, caches and build output (keeps data/)
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build dist *.egg-info
	find . -path ./data -prune -o -type d -name __pycache__ -prune -exec rm -rf {} +

# `make bench RUNS=10 CONCURRENCY=10` for a short version.
RUNS ?= 25
CONCURRENCY ?= 10 50

.PHONY: bench
bench: install ## Benchmark against LangGraph + AsyncSqliteSaver on the same nodes (report in DATA_DIR/bench)
	$(BIN)/python -m tests.bench --runs $(RUNS) --concurrency $(CONCURRENCY)

# `make bench-llm RUNS=3 CONCURRENCY=10` for a short version; TIME_SCALE=1 runs the profile in real time (slow:
# a content run is ~4 minutes of model time, an app run ~3). CONCURRENCY_TIME_SCALE=1 runs only the runs-at-once
# phases at the profile's own speed, where their ideal is the model's (a run's CPU does not shrink with the scale).
# IMAGES=local draws the images with the local renderer instead of the simulator's image API.
LLM_RUNS = $(if $(filter command line environment,$(origin RUNS)),$(RUNS),3)
TIME_SCALE ?= 0.25
CONCURRENCY_TIME_SCALE ?= $(TIME_SCALE)
IMAGES ?= api

.PHONY: bench-llm
bench-llm: install ## Every family on the model simulator against its model critical path, LangGraph beside the writing chain
	$(BIN)/python -m tests.bench.llm --runs $(LLM_RUNS) --concurrency $(CONCURRENCY) --time-scale $(TIME_SCALE) \
		--concurrency-time-scale $(CONCURRENCY_TIME_SCALE) --images $(IMAGES)

.PHONY: bench-masks
bench-masks: install ## Gateway memory and run time with 3 maximal masks at once (DATA_DIR/bench/masks.json)
	$(BIN)/python -m tests.bench.masks
