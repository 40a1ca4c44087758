# mcigen: `make demo` and `make test` work on a fresh machine with Python 3.11 and make.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXAMPLES := $(wildcard examples/*.mci.json examples/*.mci.yaml examples/*.mci.yml) examples/ahma \
  examples/broker/broker.json

.PHONY: install demo test lint golden bench clean

$(STAMP): pyproject.toml runtime/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e './runtime[redis]' -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/mcigen build examples/greetings.mci.yaml -o build/demo/greetings
	cd build/demo && ../../$(BIN)/python -c \
	  "from greetings import greet; print(greet(name='World', language='de').text)"

lint: $(STAMP)
	$(BIN)/ruff check mcigen runtime tests benchmarks
	$(BIN)/black --check --quiet mcigen runtime tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

# Every test starts Python processes that import mcigen and its runtime: compiled
# once here, even where PYTHONDONTWRITEBYTECODE keeps them from caching it.
test: lint
	$(BIN)/python -m compileall -q mcigen runtime/mcigen_runtime
	$(BIN)/pytest -q -n 3

golden: $(STAMP)
	@for schema in $(EXAMPLES); do \
	  name=$$(basename $$schema | sed -E 's/(\.mci)?\.(json|ya?ml)$$//'); \
	  echo "golden/$$name <- $$schema"; \
	  $(BIN)/mcigen build $$schema -o golden/$$name --offline || exit 1; \
	done
	@echo "golden/vendored/greetings <- examples/greetings.mci.yaml --vendor-runtime"
	@$(BIN)/mcigen build examples/greetings.mci.yaml -o golden/vendored/greetings \
	  --offline --vendor-runtime
	@cd golden/vendored/greetings && find _runtime -name '*.py' | LC_ALL=C sort \
	  > ../greetings.runtime.txt && rm -r _runtime
	@echo "golden/project/weather-api <- examples/weather_api.mci.yaml --project"
	@$(BIN)/mcigen build examples/weather_api.mci.yaml -o golden/project/weather-api \
	  --offline --project
	@cd golden/project/weather-api/weather_api && find _runtime -name '*.py' \
	  | LC_ALL=C sort > ../../weather-api.runtime.txt && rm -r _runtime

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

.PHONY: bench-quick
bench-quick: $(STAMP)
	$(BIN)/python benchmarks/run.py --quick

clean:
	rm -rf build .pytest_cache .mypy_cache .ruff_cache
