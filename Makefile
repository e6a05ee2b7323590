# Two commands do everything on a fresh machine:
#   make demo   set up, ingest the sample book, serve the API + widget + demo site on :8000
#   make test   set up (Python, npm, Chromium) and run every test
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
DATA ?= data
SHARED_BOOK ?= ../shared/corpora/physical-ai-book

.PHONY: demo test setup widget site browser generators bench eval clean

$(BIN)/lectern: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

setup: $(BIN)/lectern

# `npm ci` installs exactly the lock file and never rewrites it (the lock lists every platform's
# build of @napi-rs/canvas, pdf.js's optional canvas for Node, as npm itself writes it).
widget/node_modules: widget/package-lock.json
	cd widget && npm ci --no-audit --no-fund
	touch $@

# The build makes widget.js and the PDF viewer (pdf.js), both committed so that a deploy needs no
# Node; the same sources and lock file build the same bytes, so a build leaves git clean.
widget/dist/viewer/viewer.js: widget/node_modules $(wildcard widget/src/*.ts) widget/package.json
	cd widget && npm run build

widget: widget/dist/viewer/viewer.js

docs_site_plugin/example/node_modules: docs_site_plugin/example/package-lock.json docs_site_plugin/*.js
	cd docs_site_plugin/example && rm -rf node_modules/docusaurus-plugin-lectern node_modules/.cache && npm ci --no-audit --no-fund
	touch $@

site: docs_site_plugin/example/node_modules

browser:
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)

# Generators whose real builds the layout tests check (MkDocs and Sphinx come from pip).
tests/support/site-generators/node_modules: tests/support/site-generators/package-lock.json
	cd tests/support/site-generators && npm ci --no-audit --no-fund
	touch $@

tests/support/jupyter-book/.venv: tests/support/jupyter-book/requirements.txt
	$(PYTHON) -m venv $@
	$@/bin/pip install --quiet -r tests/support/jupyter-book/requirements.txt
	touch $@

generators: tests/support/site-generators/node_modules tests/support/jupyter-book/.venv
	@command -v hugo >/dev/null || (apt-get update -qq && apt-get install -y -qq hugo)
	@command -v jekyll >/dev/null || (apt-get update -qq && apt-get install -y -qq jekyll)
	@command -v doxygen >/dev/null || (apt-get update -qq && apt-get install -y -qq doxygen)

demo: setup widget
	$(BIN)/lectern ingest sample_book --book lectern-guide --base-url http://127.0.0.1:$(PORT)/demo --data-dir $(DATA)
	$(BIN)/lectern serve --book lectern-guide --data-dir $(DATA) --port $(PORT)

test: setup widget site browser generators
	cd widget && npm test
	cd docs_site_plugin && npm test
	$(BIN)/pytest -q

eval: setup
	$(BIN)/lectern ingest $(SHARED_BOOK) --book physical-ai --data-dir $(DATA)
	$(BIN)/lectern eval ../shared/eval/dev.jsonl --book physical-ai --data-dir $(DATA) --out $(DATA)/eval-results.jsonl

bench: setup
	$(BIN)/python benchmarks/ingest_bench.py $(SHARED_BOOK)

clean:
	rm -rf $(VENV) $(DATA) widget/node_modules docs_site_plugin/example/node_modules
