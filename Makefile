# simhash-lab: `make lab` opens the course, `make test` runs every test.
# Each target creates .venv and installs the package (editable, with extras) when needed.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
EXTRAS := course,grading,chinese,compare,dask,datasets,dev
# nbval: run in this environment; sanitize what legitimately varies between runs
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg -p no:randomly

.PHONY: lab check sandbox fonts test lint warmup test-lib test-browser bench notebooks site clean

$(STAMP): pyproject.toml
	@echo "== simhash-lab: the Python environment in $(VENV)/ (pip shows each package as it comes)"
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade --quiet pip
	$(BIN)/python -m pip install --progress-bar on -e ".[$(EXTRAS)]"
	@touch $(STAMP)

# Installing system packages needs root: use sudo when we are not root
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

# Compile every Numba kernel once, into the cache every later run reads: no notebook cell, test or
# grading run is the first to compile. `make warmup` always runs it (a second or two when the cache
# is warm); the other targets run it only when a file of the library changed since it last
# succeeded (WARM), so `make check` says nothing of kernels once they are compiled.
WARM := $(VENV)/.warm-stamp
LIBRARY := $(shell find simhash_lab -name '*.py' -not -path '*/__pycache__/*')

warmup: $(STAMP)
	$(BIN)/simhash-lab warmup
	@touch $(WARM)

$(WARM): $(STAMP) $(LIBRARY)
	@echo "== simhash-lab: compiling the Numba kernels once (simhash-lab warmup)"
	$(BIN)/simhash-lab warmup
	@touch $(WARM)

# A font with Chinese characters, for the quotations of sources 001 and 004 (Debian and Ubuntu;
# elsewhere one is installed already, or notebook 00 says what to install).
fonts:
	@if [ "$$(uname)" = Linux ] && command -v fc-list >/dev/null && [ -z "$$(fc-list :lang=zh)" ] && command -v apt-get >/dev/null; then \
		echo "== simhash-lab: a font with Chinese characters (fonts-wqy-microhei)"; \
		$(SUDO) apt-get install -y fonts-wqy-microhei || echo "simhash-lab: could not install fonts-wqy-microhei; the Chinese quotations may show as boxes (notebook 00)" >&2; fi

# The server's root is the repository (notebooks/ and exercises/ side by side, so the links between
# them work); it opens notebooks/00_start_here.ipynb, with JupyterLab's news toast off (tools/lab.py).
lab: $(WARM) sandbox fonts
	@echo "== simhash-lab: starting JupyterLab on notebooks/00_start_here.ipynb (Ctrl+C stops it)"
	$(BIN)/python tools/lab.py

# A learner checks an exercise as the grader will, in this environment (no sandbox; not a grade):
#   make check NB=exercises/01_exercise_lsh_vs_crypto.ipynb
check: $(WARM)
	@test -n "$(NB)" || (echo 'usage: make check NB=exercises/NN_exercise_name.ipynb (or NB=exercises/ for all)' >&2; exit 2)
	@$(BIN)/simhash-lab check "$(NB)"

# The grader's sandbox is bubblewrap (Debian's `bubblewrap`), installed when missing on Linux
sandbox:
	@if [ "$$(uname)" = Linux ] && ! command -v bwrap >/dev/null; then echo "== simhash-lab: the grader's sandbox (bubblewrap)"; $(SUDO) apt-get update && $(SUDO) apt-get install -y bubblewrap; fi

# The notebooks run with compiles forbidden: a cell that needs a kernel the warmup did not compile
# fails with "simhash_lab: compiling ..." (see simhash_lab/kernels/_jit.py).
test: $(WARM) lint sandbox
	$(BIN)/python -m pytest simhash_lab tests README.md --doctest-glob=README.md
	SIMHASH_LAB_ON_COMPILE=error $(BIN)/python -m pytest $(NBVAL) notebooks exercises/solutions exercises/es/solutions

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The course in JupyterLab in headless Chromium (Debian's; no browser downloads by tools).
# Screenshots go to artifacts/browser/. The whole run is capped; on SIGTERM server and browser stop.
test-browser: $(STAMP)
	@test -x /usr/bin/chromium || ($(SUDO) apt-get update && $(SUDO) apt-get install -y chromium fonts-wqy-microhei fonts-noto-color-emoji)
	$(BIN)/python -m pip install --quiet -e ".[browser]"
	$(MAKE) site
	timeout -k 60 1500 $(BIN)/python -m pytest tests/browser -m browser -p no:randomly -p no:cacheprovider -v

# The library alone, as `pip install simhash-lab` gets it, with its own extras only (no JupyterLab,
# Dask or grader), in a venv of its own: what needs another part is left out, listed at the end
# (conftest.py).
LIB_VENV   := .venv-lib
LIB_EXTRAS := chinese,datasets,compare,test
LIB_STAMP  := $(LIB_VENV)/.installed-stamp

$(LIB_STAMP): pyproject.toml
	@test -x $(LIB_VENV)/bin/python || $(PYTHON) -m venv $(LIB_VENV)
	$(LIB_VENV)/bin/python -m pip install --quiet -e ".[$(LIB_EXTRAS)]"
	@touch $(LIB_STAMP)

test-lib: $(LIB_STAMP)
	$(LIB_VENV)/bin/simhash-lab warmup
	$(LIB_VENV)/bin/python -m pytest simhash_lab tests/lib tests/cli README.md --doctest-glob=README.md

# Regenerate every notebook, exercise, solution and pristine copy from course/, and run them
# (minutes); `tools/build.py NN` builds one, `--check` compares in seconds (make test runs it)
notebooks: $(STAMP)
	$(BIN)/python tools/build.py

# The course as a static site, site/ (HTML), from the committed, executed notebooks and exercises:
# Sphinx + myst-nb, MathJax and Mermaid from npm, served from site/ itself (see tools/build_site.py)
site: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[site]"
	@test -f site_src/node_modules/.package-lock.json -a site_src/node_modules/.package-lock.json -nt site_src/package-lock.json || npm ci --prefix site_src --no-audit --no-fund
	$(BIN)/python tools/build_site.py

# The README's speed table in one dated run (benchmarks/speed_table.py, ~10 min; writes
# benchmarks/results/DATE-speed-table.md), then the fingerprint and index benchmarks in full.
# The Rust peers (rensa, gaoya) come from the `bench` extra, installed here only.
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	@test -d build/peers/simhash_pybind || $(BIN)/python -m pip install --quiet --no-deps --target build/peers/simhash_pybind simhash-pybind || echo "simhash-lab: simhash-pybind did not install (it builds with a C++ compiler); its rows will say so" >&2
	$(BIN)/python benchmarks/speed_table.py
	$(BIN)/python benchmarks/bench_fingerprint.py
	$(BIN)/python benchmarks/bench_index.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
