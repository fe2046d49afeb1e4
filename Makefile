# Every target sets up what it needs: a fresh clone needs only `make serve` or `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
ENV    := $(VENV)/.installed
ASSETS := node_modules/.installed
PORT   ?= 8000
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve preview preview-zh build dist test clean env doctor notebooks check-chapter

# A .venv whose Python no longer runs (moved, or its interpreter removed) is rebuilt.
ifneq ($(shell $(BIN)/python -c 'print(1)' 2>/dev/null),1)
$(shell rm -f $(ENV))
endif

# Python environment: created if missing, rebuilt if broken (its Python does not run, or pip
# finds its packages inconsistent), refreshed when pyproject.toml or the lock changes. Every
# version, transitive ones included, comes from constraints.txt (pip-compile, see its header).
$(ENV): pyproject.toml constraints.txt
	@$(BIN)/python -c '' 2>/dev/null && $(BIN)/python -m pip check >/dev/null 2>&1 \
		|| { echo "(re)creating $(VENV)"; rm -rf $(VENV); $(PYTHON) -m venv $(VENV); }
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[docs,test]'
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

# The site as one archive whose pages open from the disk (plain .html links), for offline reading
# or any static host: $(DIST)/gpu-performance-course.tar.gz.
DIST ?= dist
dist: env
	rm -rf build/dist-site
	LABKIT_DIRECTORY_URLS=false $(BIN)/python -m labkit.site.build build/dist-site
	mkdir -p $(DIST)
	tar czf $(DIST)/gpu-performance-course.tar.gz -C build/dist-site .
	@echo "$(DIST)/gpu-performance-course.tar.gz: open index.html (French) or zh/index.html (Chinese)"

# While writing: one language served live (pages, results and labkit's code reload on change).
preview: env
	$(BIN)/python -m labkit.site.preview fr $(PORT)

preview-zh: env
	$(BIN)/python -m labkit.site.preview zh $(PORT)

# One test module per worker at a time (--dist loadscope): a module's fixtures (a lab measured in the
# simulator, a copy of the project, `make dist`) are computed once, by one worker.
test: env
	$(BIN)/python -m pytest -n auto --dist loadscope

# One chapter in both languages, in seconds: sources, parity, drift, quizzes, typography, the build of
# its two pages (labkit/site/chapter.py). CH is its number: make check-chapter CH=03.
check-chapter: env
	@test -n "$(CH)" || { echo "say which chapter: make check-chapter CH=03"; exit 2; }
	$(BIN)/python -m labkit.cli chapter $(CH)

# The GPU packages of this machine's driver (CuPy, numba-cuda's NVVM/NVRTC; CUDA 12 or 13 flavour,
# chosen from the driver, see labkit/gpu/setup.py): once per environment; nothing without a driver.
GPU_ENV := $(VENV)/.gpu-installed
$(GPU_ENV): $(ENV) constraints.txt constraints-cuda12.txt
	$(BIN)/python -m labkit.gpu.setup
	@touch $@

# Labs and doctor run in .venv, or with PY=python3 in an interpreter that already holds the GPU
# stack (numba-cuda, numpy<2.5, nvtx, pydantic, rich, CuPy): no environment is made then.
ifeq ($(PY),)
LAB_PY   := $(BIN)/python
LAB_DEPS := $(GPU_ENV)
else
LAB_PY   := $(PY)
LAB_DEPS :=
endif

# On a GPU: the lab's measurements, recorded with provenance into labs/NN-*/results/, all or
# nothing. ARGS passes options to `labkit run`, e.g. make lab-04 ARGS="--threads 512", which
# records as an experiment in labs/NN-*/experiments/, never over the course's record.
# Without one: the kernels in the Numba CUDA simulator, then the recorded results.
lab-%: $(LAB_DEPS)
	$(LAB_PY) -m labkit.cli run lab-$* --record $(ARGS)

# An exercise: your file under labs/NN-*/exercises/ checked against its criteria, in the simulator
# (output, memory traffic, bank conflicts...) and, on a GPU, against our solution's time.
# make exercise-01-fuse ARGS="--lang zh"; `.venv/bin/labkit check` lists them.
exercise-%: $(LAB_DEPS)
	$(LAB_PY) -m labkit.cli check $* $(ARGS)

# Each lab's .ipynb for Colab, with its install cell (only when pyproject.toml names the repository).
notebooks: env
	$(BIN)/python -m labkit.cli notebooks

doctor: $(LAB_DEPS)
	$(LAB_PY) -m labkit.cli doctor $(ARGS)

clean:
	rm -rf site build dist .pytest_cache
	find . -name __pycache__ -not -path './$(VENV)/*' -not -path './node_modules/*' -prune -exec rm -rf {} +
