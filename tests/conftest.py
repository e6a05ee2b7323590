"""Shared fixtures. Books are ingested once per session (see tests/support/books.py)."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from backend.config import Settings
from backend.engine import Library
from tests.support.books import SHARED_BOOK, copy_data_dir, ingest_into


@pytest.fixture(scope="session")
def real_book_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shared physical-ai book, ingested once (about a minute on two cores)."""
    data_dir = tmp_path_factory.mktemp("real-book-template")
    ingest_into(data_dir, SHARED_BOOK, "physical-ai", base_url="/demo")
    return data_dir


@pytest.fixture(scope="module")
def real_library(real_book_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    """The real book's library, on a copy of the ingested template, for one test module."""
    data = copy_data_dir(real_book_template, tmp_path_factory.mktemp("library") / "data")
    library = Library(Settings(LECTERN_DATA_DIR=data, LECTERN_BOOK="physical-ai"))
    yield library
    library.close()


@pytest.fixture
def real_book(real_book_template: Path, tmp_path: Path) -> Path:
    """A private copy of the ingested real book's data dir."""
    return copy_data_dir(real_book_template, tmp_path / "data")
