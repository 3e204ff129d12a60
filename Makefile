# rove: one command to set up and make the book, one to set up and test.
# Setup builds the compiled search core (core/, Rust) into the package with maturin,
# so a Rust toolchain (cargo) must be on the PATH; rustup puts it in ~/.cargo/bin.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
CARGO  ?= cargo
DIST   ?= dist
CORE_SOURCES := $(shell find core -name '*.rs' -o -name Cargo.toml -o -name Cargo.lock 2>/dev/null)
export PATH := $(HOME)/.cargo/bin:$(PATH)

.PHONY: setup browser book cards test lint docs dist bench clean

## Also compiles the package's bytecode: an editable install leaves it to Python, which
## writes none under PYTHONDONTWRITEBYTECODE (common in CI and containers) and then
## compiles every module of rove at every start (bench/startup.py --cold shows the cost).
## compileall only rewrites what changed, so this runs at every setup.
setup: $(STAMP)
	@$(BIN)/python -m compileall -q generator/rove

$(STAMP): pyproject.toml $(CORE_SOURCES)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,docs]'
	touch $(STAMP)

## The browser `rove play`'s tests drive: the distribution's chromium and its driver,
## installed with apt-get when missing (as root, as CI runs; otherwise it says what to run).
browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; \
	else echo "make browser: install chromium and chromedriver (Debian: sudo apt-get install chromium chromium-driver)"; fi

## The main job on the bundled deck: PDFs under output/.
book: setup
	$(BIN)/rove book --spec standard -o output/book.pdf
	$(BIN)/rove cards standard -o output/cards.pdf

cards: setup
	$(BIN)/rove cards standard -o output/cards.pdf

## Linters and type checkers: Rust (rustfmt, clippy) and Python (ruff, mypy).
lint: setup
	$(CARGO) fmt --manifest-path core/Cargo.toml --all --check
	$(CARGO) clippy --manifest-path core/Cargo.toml --release --all-targets --quiet -- -D warnings
	$(BIN)/ruff check generator tests bench docs/tools
	$(BIN)/mypy

## The whole test suite: the core's own tests (rove-core's: the binding has none, and
## building it for tests would only build PyO3 once more), the linters, pytest on two worker
## processes, then the guide's build (make docs).  The compiled core must be built (the
## run's first line says it is); ROVE_CORE=0 tests the pure-Python path instead.
## worksteal hands tests out one by one and lets an idle worker take queued ones from a
## busy one, so a file of long tests no longer holds one worker while the other waits
## (loadfile did).
test: setup browser lint
	$(CARGO) test --manifest-path core/Cargo.toml -p rove-core --release --quiet
	$(BIN)/python -m pytest -q -n 2 --dist worksteal
	$(MAKE) --no-print-directory docs

## The guide (docs/, mkdocs.yml): its pictures, made by rove itself (docs/tools/pictures.py:
## the browser's screenshot needs `make browser`), then the site in site/. --strict makes a
## broken link, a missing page or picture fail the build.
docs: setup browser
	$(BIN)/python docs/tools/pictures.py
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

## The package as a user installs it: an sdist and a wheel in $(DIST)/ (make dist
## DIST=folder for another). The wheel holds the compiled core (one abi3 build for
## CPython 3.11 and newer), the bundled decks and schemas and the play page, so
## `pip install` of it needs no Rust; maturin tags it manylinux when its libc calls allow.
dist: setup
	$(BIN)/maturin sdist --out $(DIST)
	$(BIN)/maturin build --release --out $(DIST)

bench: setup
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) core/target dist output/*.pdf output/*.png site docs/assets/generated
