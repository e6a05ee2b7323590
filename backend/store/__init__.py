"""Persistence: SQLite under the data dir by default, PostgreSQL when DATABASE_URL is set."""

from backend.config import Settings
from backend.store.resilient import ResilientStore
from backend.store.sql import PostgresStore, SQLiteStore, Store

__all__ = ["ResilientStore", "Store", "open_store"]


def open_store(settings: Settings) -> Store:
    if settings.database_url:
        return PostgresStore(settings.database_url, settings.dependency_timeout)
    return SQLiteStore(settings.data_dir / "lectern.sqlite3")
