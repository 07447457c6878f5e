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

.DEFAULT_GOAL := help
.PHONY: help setup reproduce test test-gpu smoke data lab clean distclean

comma := ,
empty :=
space := $(empty) $(empty)

# The data mirror beside this checkout, unless APSP_DATA_MIRROR names another.
ifeq ($(APSP_DATA_MIRROR),)
ifneq ($(wildcard ../shared/data/raw),)
export APSP_DATA_MIRROR := $(abspath ../shared/data/raw)
endif
endif

# Import names the interpreter needs: pyproject's dependency list (import name =
# distribution name), plus the test tools or jupyterlab for the targets that use them.
DEPS := $(shell sed -n '/^dependencies = \[/,/^\]/s/^ *"\([A-Za-z0-9_.-]*\).*/\1/p' pyproject.toml)
EXTRAS :=
ifneq ($(filter test test-gpu,$(MAKECMDGOALS)),)
DEPS += pytest hypothesis dask distributed zarr
EXTRAS += test
endif
ifneq ($(filter lab,$(MAKECMDGOALS)),)
DEPS += jupyterlab
EXTRAS += lab
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
	@echo "make data        fetch or stand in for every dataset (APSP_DATA_MIRROR=$(APSP_DATA_MIRROR))"
	@echo "make lab         JupyterLab on notebooks/"
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

data: setup
	$(PY) -m apsp_kernels.reproduce --fetch-data

reproduce: data
	$(PY) -m apsp_kernels.reproduce --profile $(PROFILE) --output $(RESULTS) $(if $(RESUME),--resume) $(NOTEBOOKS)

smoke: setup
	$(PY) -m apsp_kernels.reproduce --profile smoke --output $(SMOKE_RESULTS) $(NOTEBOOKS)

test: setup
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

NO_GPU := make test-gpu: CuPy sees no CUDA device on this machine (needs a GPU and .[cuda13] or .[cuda12])
test-gpu: setup
	@$(PY) -c 'import sys; from apsp_kernels import gpu; sys.exit(0 if gpu.available() else "$(NO_GPU)")'
	$(PY) -m pytest -q -p no:cacheprovider -m gpu $(PYTEST_ARGS)

lab: setup
	PYTHONPATH="$(CURDIR)$${PYTHONPATH:+:$$PYTHONPATH}" $(PY) -m jupyterlab --ServerApp.root_dir=notebooks

clean:
	rm -rf build .pytest_cache *.egg-info
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
	find $(RESULTS) -name '.*.running-*.ipynb' -delete 2>/dev/null || true

distclean: clean
	rm -rf $(VENV)
