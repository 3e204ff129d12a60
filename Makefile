# rove: one command to set up and make the book, one to set up and test.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: setup book cards test bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

## The main job on the bundled deck: PDFs under output/.
book: setup
	$(BIN)/rove book --spec standard -o output/book.pdf
	$(BIN)/rove cards standard -o output/cards.pdf

cards: setup
	$(BIN)/rove cards standard -o output/cards.pdf

## The whole test suite, on both cores.
test: setup
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

bench: setup
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) output/*.pdf output/*.png
