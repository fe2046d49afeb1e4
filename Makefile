# Every target sets up what it needs: a fresh clone needs only `make serve` or `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
ENV    := $(VENV)/.installed
ASSETS := node_modules/.installed
PORT   ?= 8000
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve build test clean env doctor

# Python environment: created if missing, refreshed when pyproject.toml changes.
$(ENV): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[docs,test]'
	@touch $@

# KaTeX and Mermaid, from the npm registry (versions locked in package-lock.json).
$(ASSETS): package.json package-lock.json
	npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	@touch $@

env: $(ENV) $(ASSETS)

build: env
	$(BIN)/python -m labkit.site.build site

serve: build
	@echo "Serving both languages at http://127.0.0.1:$(PORT)/ (Chinese: http://127.0.0.1:$(PORT)/zh/)"
	$(BIN)/python -m http.server $(PORT) --bind 127.0.0.1 --directory site

test: env
	$(BIN)/python -m pytest -n auto

# Labs and doctor run in .venv, or with PY=python3 in an interpreter that already holds the GPU
# stack (numba-cuda, numpy<2.5, nvtx, jsonschema, rich): no environment is made then.
ifeq ($(PY),)
LAB_PY   := $(BIN)/python
LAB_DEPS := $(ENV)
else
LAB_PY   := $(PY)
LAB_DEPS :=
endif

# On a GPU: the lab's measurements, recorded with provenance into labs/NN-*/results/.
# ARGS passes options to `labkit run`, e.g. make lab-04 ARGS="--threads 512".
# Without one: the kernels in the Numba CUDA simulator, then the recorded results.
lab-%: $(LAB_DEPS)
	$(LAB_PY) -m labkit.cli run lab-$* --record $(ARGS)

doctor: $(LAB_DEPS)
	$(LAB_PY) -m labkit.cli doctor

clean:
	rm -rf site .pytest_cache
	find . -name __pycache__ -not -path './$(VENV)/*' -not -path './node_modules/*' -prune -exec rm -rf {} +
