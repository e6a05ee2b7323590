"""Ingested books for tests: the shared real book is ingested once per test session into a
template folder; each user gets its own copy (embedded Qdrant allows one client per folder)."""

import hashlib
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from qdrant_client import QdrantClient

from backend.app import create_app
from backend.config import Settings
from backend.engine import Library
from backend.retrieval.embeddings import Embedder, make_embedder
from backend.retrieval.index import BookIndex
from ingest_scripts.manifest import Manifest
from ingest_scripts.pipeline import ingest, plan_book

SHARED_BOOK = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "physical-ai-book"
REDUX_DOCS = SHARED_BOOK.parent / "redux-docs"
PROJECT_QUESTIONS = Path(__file__).resolve().parents[2] / "eval" / "questions"
SAMPLE_BOOK = Path(__file__).resolve().parents[2] / "sample_book"
EVAL_QUESTIONS = SHARED_BOOK.parents[1] / "eval" / "dev.jsonl"

POSTGRES = "postgresql://postgres@127.0.0.1:5432/postgres"  # the machine's server (trust auth)
REDIS = "redis://127.0.0.1:6379/0"

# Two books on one server (tests/conftest.py two_books): motors is public, kitchen private.
KITCHEN_BOOK = {
    "01-bread/_category_.json": '{"label": "Bread"}',
    "01-bread/01-sourdough.md": """---
title: Sourdough
---

# Sourdough

## Feeding the Starter

A sourdough starter is fed equal weights of flour and water every twelve hours. A fed starter
doubles in four to six hours at room temperature, and it is ready to bake with at its peak.

## Baking

Sourdough bakes at 250 degrees Celsius for twenty minutes with steam, then twenty-five minutes
more without steam until the crust is deep brown.
""",
}
READER_SECRET = "kitchen-reader-secret"  # the private book's, in KITCHEN_READER_SECRET
MOTORS_SITE, KITCHEN_SITE = "https://motors.example", "https://kitchen.example"
REGISTRY = f"""
[books.motors]
origins = ["{MOTORS_SITE}"]
rate_limit = "30/minute"
maintainer_token_sha256 = "{hashlib.sha256(b"motors-token").hexdigest()}"

[books.kitchen]
origins = ["{KITCHEN_SITE}"]
maintainer_token_sha256 = "{hashlib.sha256(b"kitchen-token").hexdigest()}"
reader_secret_env = "KITCHEN_READER_SECRET"
"""

_embedder: Embedder | None = None


def local_embedder() -> Embedder:
    """The default local model, once per test process (it takes a moment to load)."""
    global _embedder
    if _embedder is None:
        _embedder = make_embedder(Settings())
    return _embedder


def ingest_into(data_dir: Path, book_dir: Path, book: str, embedder: Embedder | None = None,
                base_url: str = "", manifest: Manifest | None = None) -> None:
    settings = Settings(LECTERN_DATA_DIR=data_dir)
    settings.qdrant_path.mkdir(parents=True, exist_ok=True)
    client = QdrantClient(path=str(settings.qdrant_path))
    try:
        plan = plan_book(book_dir, book, base_url, manifest)
        ingest(plan, BookIndex(client, book), embedder or local_embedder(), files_dir=settings.files_dir(book))
    finally:
        client.close()


def app_settings(data: Path, **env: Any) -> Settings:
    """Settings of a test app serving the data dir `data` (book "motors" unless `book=` says)."""
    return Settings(LECTERN_DATA_DIR=data, LECTERN_BOOK=env.pop("book", "motors"), **env)


def app_client(data: Path, **env: Any) -> TestClient:
    """A test client of the app serving the data dir `data` (see app_settings)."""
    return TestClient(create_app(app_settings(data, **env)))


def copy_data_dir(template: Path, target: Path) -> Path:
    shutil.copytree(template, target)
    return target


def write_book(root: Path, files: dict[str, str]) -> Path:
    """A docs folder from {relative path: text}."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def sphinx_build(docs: Path, site: Path) -> Path:
    """The HTML site Sphinx builds from the project in `docs`, into `site`."""
    subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", str(docs), str(site)],
                   check=True, capture_output=True)
    return site


def mkdocs_build(project: Path, site: Path) -> Path:
    """The HTML site MkDocs builds from the project in `project` (its `mkdocs.yml`), into `site`."""
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(project / "mkdocs.yml"), "-d", str(site)],
                   check=True, capture_output=True, cwd=project)
    return site


@contextmanager
def library_of(tmp_path: Path, files: dict[str, str], book: str) -> Iterator[Library]:
    """A book written from {relative path: text} and ingested, as its Library (closed after)."""
    ingest_into(tmp_path / "data", write_book(tmp_path / book, files), book)
    library = Library(Settings(LECTERN_DATA_DIR=tmp_path / "data", LECTERN_BOOK=book))
    try:
        yield library
    finally:
        library.close()
