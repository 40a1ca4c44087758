# mcigen: `make demo` and `make test` work on a fresh machine with Python 3.11 and make.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXAMPLES := $(wildcard examples/*.mci.json examples/*.mci.yaml examples/*.mci.yml) examples/ahma \
  examples/broker/broker.json

.PHONY: install demo test lint golden bench docs clean

# uv installs the ~120 distributions in a fraction of pip's time; it reads no pip.conf,
# so the machine's local wheels are passed on.
$(STAMP): pyproject.toml runtime/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip 'uv>=0.9,<1'
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python \
	  $(if $(PIP_FIND_LINKS),--find-links $(PIP_FIND_LINKS)) -e './runtime[redis]' -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/mcigen build examples/greetings.mci.yaml -o build/demo/greetings
	cd build/demo && ../../$(BIN)/python -c \
	  "from greetings import greet; print(greet(name='World', language='de').text)"
	@echo "mcigen is installed in .venv: run '. .venv/bin/activate', then the README's tour."

lint: $(STAMP)
	$(BIN)/ruff check mcigen runtime tests benchmarks
	$(BIN)/black --check --quiet mcigen runtime tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

# Every test starts Python processes that import mcigen and its runtime: compiled
# once here, even where PYTHONDONTWRITEBYTECODE keeps them from caching it. The
# suite leaves a third of the two cores idle, so lint runs beside it, its report
# printed after the suite's (which shows as it goes).
test: $(STAMP)
	$(BIN)/python -m compileall -q mcigen runtime/mcigen_runtime
	@report=$$(mktemp); $(MAKE) --no-print-directory lint >$$report 2>&1 & linting=$$!; \
	$(BIN)/pytest -q -n 3; tested=$$?; \
	wait $$linting; linted=$$?; cat $$report; rm -f $$report; \
	[ $$tested = 0 ] && [ $$linted = 0 ]

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

# The documentation site (docs/, mkdocs.yml) into site/; --strict: a warning, such as a
# link to a page or anchor that is not there, fails the build (not --quiet: it hides
# the warnings from --strict too).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

.PHONY: bench-quick
bench-quick: $(STAMP)
	$(BIN)/python benchmarks/run.py --quick

clean:
	rm -rf build site .pytest_cache .mypy_cache .ruff_cache
