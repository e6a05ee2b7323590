"""Shared fixtures. Books are ingested once per session (see tests/support/books.py)."""

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest
from fastapi.testclient import TestClient

from backend.config import Settings
from backend.engine import Library
from tests.support.books import (
    KITCHEN_BOOK,
    POSTGRES,
    REGISTRY,
    SHARED_BOOK,
    app_client,
    copy_data_dir,
    ingest_into,
    write_book,
)
from tests.unit.test_answers import INJECTION_BOOK


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


@pytest.fixture(scope="session")
def motors_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A three-lesson book about motors, ingested once; tests copy it (see copy_data_dir)."""
    root = tmp_path_factory.mktemp("api-motors")
    ingest_into(root / "data", write_book(root / "docs", INJECTION_BOOK), "motors")
    return root / "data"


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A new database on the machine's PostgreSQL, dropped after the test."""
    name = f"lectern_test_{uuid.uuid4().hex[:10]}"

    async def admin(sql: str) -> None:
        connection = await asyncpg.connect(POSTGRES)
        await connection.execute(sql)
        await connection.close()

    asyncio.run(admin(f"CREATE DATABASE {name}"))
    yield f"postgresql://postgres@127.0.0.1:5432/{name}"
    asyncio.run(admin(f"DROP DATABASE {name} WITH (FORCE)"))


@pytest.fixture
def motors(motors_template: Path, tmp_path: Path) -> Iterator[TestClient]:
    """A test client of the app serving a private copy of the motors book."""
    with app_client(copy_data_dir(motors_template, tmp_path / "motors-data")) as client:
        yield client


@pytest.fixture(scope="session")
def two_books(motors_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir with the motors and kitchen books (and one the registry does not list), and
    the registry books.toml beside it."""
    root = tmp_path_factory.mktemp("two-books")
    data = copy_data_dir(motors_template, root / "data")
    ingest_into(data, write_book(root / "kitchen", KITCHEN_BOOK), "kitchen")
    ingest_into(data, write_book(root / "unlisted", KITCHEN_BOOK), "unlisted")
    (root / "books.toml").write_text(REGISTRY, encoding="utf-8")
    return root
