# apsp_kernels: `make help` lists the targets.
#
# $(PYTHON) runs everything when it can import the dependencies of pyproject.toml
# (e.g. through PYTHONPATH on a GPU host without a package index); otherwise a
# virtualenv is made in $(VENV) and the package installed there with pip.
PYTHON ?= python3
VENV ?= .venv
VENV_CMD ?= $(PYTHON) -m venv
PIP_ARGS ?=
PROFILE ?= default
RESULTS ?= results
SMOKE_RESULTS ?= build/smoke-results
NOTEBOOKS ?=
RESUME ?=
PYTEST_ARGS ?=
# `make test` runs the tests in this many processes, a file each at a time (pytest-xdist): the CPUs, at most 4
TEST_PROCESSES ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ $$n -gt 4 ] && n=4; echo $$n)

.DEFAULT_GOAL := help
.PHONY: help setup precompile reproduce test test-gpu smoke data lab docs clean distclean wheel check-wheel

comma := ,
empty :=
space := $(empty) $(empty)

# The data mirror: APSP_DATA_MIRROR, else .data_mirror/ in this checkout, else ../shared/data/raw beside it.
# A mirror's gaps are stood in for without a download attempt unless APSP_DATA_DOWNLOAD=1.
ifeq ($(APSP_DATA_MIRROR),)
ifneq ($(wildcard .data_mirror),)
export APSP_DATA_MIRROR := $(abspath .data_mirror)
else ifneq ($(wildcard ../shared/data/raw),)
export APSP_DATA_MIRROR := $(abspath ../shared/data/raw)
endif
endif
# Runs from the checkout keep downloads and parsed graphs in data/cache (the package's default: the user's cache).
export APSP_DATA_CACHE ?= $(abspath data/cache)
WHEEL_DIR ?= .whl
CHECK_VENV ?= build/wheel-venv

# Import names the interpreter needs: pyproject's dependency list (import name =
# distribution name), plus the test tools or jupyterlab for the targets that use them.
DEPS := $(shell sed -n '/^dependencies = \[/,/^\]/s/^ *"\([A-Za-z0-9_.-]*\).*/\1/p' pyproject.toml)
EXTRAS :=
ifneq ($(filter test test-gpu,$(MAKECMDGOALS)),)
DEPS += pytest xdist hypothesis dask distributed zarr
EXTRAS += test
endif
ifneq ($(filter lab,$(MAKECMDGOALS)),)
DEPS += jupyterlab
EXTRAS += lab
endif
ifneq ($(filter docs,$(MAKECMDGOALS)),)
DEPS += mkdocs mkdocstrings mkdocstrings_handlers
EXTRAS += docs
endif
ifneq ($(filter reproduce smoke data,$(MAKECMDGOALS)),)
# CuPy for this host's driver: CUDA 13 wheels need driver >= 580, CUDA 12 >= 525; none without a GPU.
CUDA_EXTRA ?= $(shell nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | \
	awk -F. 'NR == 1 { print ($$1 >= 580 ? "cuda13" : $$1 >= 525 ? "cuda12" : "") }')
# Several GPUs: dask-cuda runs one notebook per GPU at a time (apsp_kernels/multi_gpu.py).
GPU_COUNT ?= $(shell nvidia-smi -L 2>/dev/null | grep -c '^GPU')
EXTRAS += $(CUDA_EXTRA) $(if $(filter-out 0 1,$(GPU_COUNT)),distributed-gpu,distributed)
DEPS += dask distributed zarr
endif
EXTRAS_SPEC := $(if $(strip $(EXTRAS)),[$(subst $(space),$(comma),$(sort $(EXTRAS)))])
CHECK_DEPS = -c 'import importlib.util as u, sys; m = [n for n in sys.argv[1:] if u.find_spec(n) is None]; \
	m and print("missing:", *m); sys.exit(bool(m))' $(DEPS)

VENV_PY := $(abspath $(VENV))/bin/python
ifneq ($(FORCE_VENV),)
PY := $(VENV_PY)
else ifeq ($(shell $(PYTHON) $(CHECK_DEPS) >/dev/null 2>&1 && echo ok),ok)
PY := $(PYTHON)
else
PY := $(VENV_PY)
endif

help:
	@echo "make reproduce   run every notebook (PROFILE=$(PROFILE), NOTEBOOKS='a b' for some) into $(RESULTS)/;"
	@echo "                 the gallery is $(RESULTS)/README.md; RESUME=1 reuses what a killed or failed run"
	@echo "                 of the same profile and commit measured in full"
	@echo "make test        the test suite (GPU tests skip themselves without a CUDA device)"
	@echo "make test-gpu    only the GPU tests; fails without a CUDA device"
	@echo "make smoke       every notebook in the smoke profile (seconds) into $(SMOKE_RESULTS)/"
	@echo "make data        fetch the datasets the notebooks need in PROFILE (APSP_DATA_MIRROR=$(APSP_DATA_MIRROR));"
	@echo "                 what the mirror lacks is stood in for, or downloaded with APSP_DATA_DOWNLOAD=1"
	@echo "make wheel       the package as a wheel in $(WHEEL_DIR)/ (for a host without a package index)"
	@echo "make check-wheel that wheel in a fresh virtualenv, checked from outside the checkout"
	@echo "make precompile  compile ahead what a first road-network call would (once per machine; make reproduce does it)"
	@echo "make lab         JupyterLab on notebooks/"
	@echo "make docs        the documentation site (docs/, mkdocs.yml) into build/docs/, warnings as errors"
	@echo "make clean       caches and build outputs; make distclean also removes $(VENV)"
	@echo "Python: $(PY)"

# Installs into $(VENV) only when it is the interpreter in use and lacks a dependency.
setup:
ifeq ($(PY),$(VENV_PY))
	@$(PY) $(CHECK_DEPS) >/dev/null 2>&1 || { \
	  echo "installing the dependencies into $(VENV) with pip"; \
	  { test -x $(PY) || $(VENV_CMD) $(VENV); } && \
	  $(PY) -m pip install $(PIP_ARGS) -e '.$(EXTRAS_SPEC)' && $(PY) $(CHECK_DEPS); }
endif

# Compiles ahead what a first road-network call would (numba, and CUDA on a GPU host; seconds when cached).
precompile: setup
	$(PY) -m apsp_kernels.precompile

data: precompile
	$(PY) -m apsp_kernels.reproduce --fetch-data --profile $(PROFILE) $(NOTEBOOKS)

reproduce: data
	$(PY) -m apsp_kernels.reproduce --profile $(PROFILE) --output $(RESULTS) $(if $(RESUME),--resume) $(NOTEBOOKS)

smoke: precompile
	$(PY) -m apsp_kernels.reproduce --profile smoke --output $(SMOKE_RESULTS) $(NOTEBOOKS)

test: setup
	$(PY) -m pytest -q -p no:cacheprovider -n $(TEST_PROCESSES) --dist loadfile $(PYTEST_ARGS)

NO_GPU := make test-gpu: CuPy sees no CUDA device on this machine (needs a GPU and .[cuda13] or .[cuda12])
test-gpu: precompile
	@$(PY) -c 'import sys; from apsp_kernels import gpu; sys.exit(0 if gpu.available() else "$(NO_GPU)")'
	$(PY) -m pytest -q -p no:cacheprovider -m gpu $(PYTEST_ARGS)

# pip of $(VENV) when there is one (it has pip), else of $(PYTHON); the build itself runs isolated.
WHEEL_PY := $(if $(wildcard $(VENV_PY)),$(VENV_PY),$(PYTHON))
wheel:
	rm -f $(WHEEL_DIR)/apsp_kernels-*.whl
	$(WHEEL_PY) -m pip wheel -q --no-deps $(PIP_ARGS) -w $(WHEEL_DIR) .

# Its dependencies come from the package index; the checks need no GPU and no network beyond that.
check-wheel: wheel
	rm -rf $(CHECK_VENV)
	$(VENV_CMD) $(CHECK_VENV)
	$(CHECK_VENV)/bin/python -m pip install -q $(PIP_ARGS) $(WHEEL_DIR)/apsp_kernels-*.whl
	cd "$$(mktemp -d)" && $(abspath $(CHECK_VENV))/bin/python -m apsp_kernels.install_check --outside-checkout

lab: setup
	PYTHONPATH="$(CURDIR)$${PYTHONPATH:+:$$PYTHONPATH}" $(PY) -m jupyterlab --ServerApp.root_dir=notebooks

docs: setup
	$(PY) -m mkdocs build --strict --site-dir build/docs

clean:
	rm -rf build .pytest_cache *.egg-info
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
	find $(RESULTS) -name '.*.running-*.ipynb' -delete 2>/dev/null || true

distclean: clean
	rm -rf $(VENV)
