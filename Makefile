# The two set-up commands are `make run` and `make test`; everything they need is installed here.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SAM_VENV := .tools/sam
SAM := $(SAM_VENV)/bin/sam
SAM_VERSION := 1.170.0
# checkov pins boto3==1.35.49, packaging<24 and networkx<2.7, which clash with .venv: its own venv too.
CHECKOV_VENV := .tools/checkov
CHECKOV := $(CHECKOV_VENV)/bin/checkov
CHECKOV_VERSION := 3.3.30
PYTEST_ARGS ?=
# setuptools warns on every editable install of a package whose folder sits in the working directory
# ("Editable installation ... may take precedence during imports"): that is the point here, so not on screen.
EDITABLE_ENV := PYTHONWARNINGS="ignore:Editable installation"

.PHONY: install tools node run test test-large test-node clients fuzz fuzz-files load test-integration lint format bench bench-quick bench-metering openapi python312 sam-build template-check deploy clean

$(STAMP): requirements-dev.txt layers/requirements.txt pyproject.toml clients/python/pyproject.toml clients/mcp/pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is needed (PYTHON=$(PYTHON))")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	$(EDITABLE_ENV) $(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e . -e clients/python -e clients/mcp
	@touch $(STAMP)

install: $(STAMP)

## Independent tools the tests check outputs with (apt-get when root; otherwise their tests skip).
tools:
	@bash .ci/install-tools

## Serve the whole API on http://127.0.0.1:$${FILEAPI_PORT:-3000} with a local DynamoDB endpoint; its data is kept
## in .local/ between runs, and FRESH=1 starts with none.
FRESH ?=
run: install
	$(BIN)/fileapi run$(if $(FRESH), --fresh)

## The Node SDK's dependencies (TypeScript) and build, when npm is there.
node:
	@if command -v npm >/dev/null 2>&1; then \
		cd clients/node && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build; \
	else echo "npm not found: the Node SDK is not built and its tests do not run"; fi

## The whole test suite (unit, API, Lambda-handler, server, clients, corpus when ../shared/corpus exists),
## then the Node SDK's own tests (node --test against a `fileapi run` they start).
test: install tools node
	$(BIN)/python -m pytest -n 2 --dist loadgroup $(PYTEST_ARGS)
	@$(MAKE) --no-print-directory test-node

## Only the large-file operations (a 1,200-page ~120 MB PDF split, merged and compressed; a 100 MB PNG to WebP)
## on `fileapi serve` and `fileapi operations` over moto's S3 and SQS; `make test` runs them too.
test-large: install tools
	$(BIN)/python -m pytest tests/server/test_large_files.py -m large -ra

test-node: install node
	@if command -v npm >/dev/null 2>&1; then cd clients/node && npm test --silent; fi

## The schemathesis run of the suite with many more examples per operation (FILEAPI_FUZZ_EXAMPLES, default
## 200) and, to explore other cases than the suite's, another seed (FILEAPI_FUZZ_SEED=N).
fuzz: install
	FILEAPI_FUZZ_EXAMPLES=$${FILEAPI_FUZZ_EXAMPLES:-200} $(BIN)/python -m pytest tests/server/test_fuzz_openapi.py -ra -s

## Every file of ../shared/corpus (and seeded mutants of a quarter of them) through every endpoint of its
## family on the local app: requests, server errors and answers over 15 s per route (FUZZ_FILES_ARGS:
## e.g. --sample 4, --family pdf, --seed 1, --json out.json). The suite runs a sample (tests/corpus).
FUZZ_FILES_ARGS ?=
fuzz-files: install
	nice -n 10 $(BIN)/python -m tools.fuzz_files $(FUZZ_FILES_ARGS)

## The local load test (60 s and at least 10,000 requests): throughput, latency, memory. make test checks its
## answers and memory over a fixed number of requests (tests/server/test_load.py), not its speed.
load: install
	$(BIN)/python -m tools.load 60 10000

## Black-box tests of a running API: FILEAPI_BASE_URL and FILEAPI_API_KEY (skipped without them).
test-integration: install
	$(BIN)/python -m pytest tests/integration -m integration -ra

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	@if command -v npm >/dev/null 2>&1 && test -d clients/node/node_modules; then cd clients/node && npx --no-install tsc --noEmit -p .; fi

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

## Benchmarks: medians and ratios against independent tools in the same run.
bench: install tools
	$(BIN)/python -m bench

## Metering's costs per request and the load model of one 10,000 req/s key (last line: the model's figures).
bench-metering: install
	$(BIN)/python -m bench.metering

## The request-path rows and the fast converter rows of the scoreboard (under 3 minutes), with the
## line `stack: N us own cost per metered request`.
bench-quick: install
	$(BIN)/python -m bench --quick

## Regenerate the catalogue's derived files (template.yaml's routes, events/, docs/api.md's tables), then
## shared/fileapi/openapi.json from the functions' apps, docs/operations.md's settings table from
## shared/fileapi/setting_variables.py, then the SDKs' generated code (tests fail when any is stale).
openapi: install
	$(BIN)/fileapi catalogue --write
	$(BIN)/fileapi openapi --write
	$(BIN)/fileapi settings --write
	$(BIN)/python clients/generate.py

clients: install
	$(BIN)/python clients/generate.py

$(SAM):
	$(PYTHON) -m venv $(SAM_VENV)
	$(SAM_VENV)/bin/python -m pip install --quiet --disable-pip-version-check "aws-sam-cli==$(SAM_VERSION)"

$(CHECKOV):
	$(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/python -m pip install --quiet --disable-pip-version-check "checkov==$(CHECKOV_VERSION)"

## The Lambda runtime's Python (3.12) compiles everything sam build ships to bytecode, so that no cold start
## compiles fastapi, pydantic or fileapi from source (docs/operations.md). Found on PATH, in pyenv or by uv;
## set PYTHON312=/path/to/python3.12 to choose one.
ifndef PYTHON312
# Looked for once, on first use (not by every make command): the first candidate that is Python 3.12.
PYTHON312 = $(eval PYTHON312 := $(shell for p in python3.12 $$HOME/.pyenv/versions/3.12*/bin/python3.12 "$$(uv python find 3.12 2>/dev/null)"; do \
	found=$$("$$p" -c 'import sys; sys.version_info[:2] == (3, 12) and print(sys.executable)' 2>/dev/null) && [ -n "$$found" ] && echo "$$found" && break; done))$(PYTHON312)
endif

python312:
	@echo "$(PYTHON312)"

## sam build, with the bytecode of the runtime's Python when there is one. Not from sam's cache (samconfig's
## `cached`): its key does not include PYTHON312, so a cached layer could come with or without bytecode.
sam-build: $(SAM)
	@test -n "$(PYTHON312)" || echo "warning: no Python 3.12 found: the build ships source only, and every init compiles it (about twice the import time). Install one (uv python install 3.12, pyenv install 3.12 or the OS package python3.12) or set PYTHON312=/path/to/python3.12; see docs/operations.md" >&2
	PYTHON312="$(PYTHON312)" SAM_CLI_TELEMETRY=0 $(SAM) build --parallel --no-cached

## cfn-lint, checkov (every declined check is a `checkov:skip=ID:reason` in the template),
## `sam validate --lint` and `sam build` (no Docker: layers are cross-installed).
template-check: install $(SAM) $(CHECKOV)
	$(BIN)/cfn-lint template.yaml
	$(CHECKOV) --file template.yaml --framework cloudformation --compact --quiet --skip-download
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml
	SAM_CLI_TELEMETRY=0 $(SAM) validate --lint --region us-east-1
	@$(MAKE) --no-print-directory sam-build
	$(BIN)/python .ci/check_build.py .aws-sam/build $(if $(PYTHON312),,--no-bytecode)

## sam build and deploy a stage (STAGE=dev|staging|prod), with AWS credentials in the environment.
STAGE ?= dev
DEPLOY_FLAGS ?=
deploy: $(SAM)
	@$(MAKE) --no-print-directory sam-build
	SAM_CLI_TELEMETRY=0 $(SAM) deploy --config-env $(STAGE) $(DEPLOY_FLAGS)

clean:
	rm -rf .aws-sam .pytest_cache .mypy_cache .ruff_cache .local clients/node/dist clients/node/node_modules clients/node/*.tgz
