"""SQLite (aiosqlite, the default) and PostgreSQL (asyncpg, e.g. Neon) behind one interface.

The two differ only in how they connect, their placeholders and their migration DDL; every
query is written once, with `?` placeholders that the Postgres store renumbers to `$n`.
"""

import asyncio
import json
import re
import sqlite3
from abc import ABC, abstractmethod
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiosqlite
import asyncpg

from backend.question import Turn
from backend.store.models import (
    AskedQuestion,
    CuratedAnswer,
    Feedback,
    FeedbackEntry,
    GeneratedAnswer,
    Interaction,
    Questionnaire,
    QuestionnaireRow,
    Stats,
)

INTERACTION_COLUMNS = (
    "message_id, conversation_id, session_id, book, question, selected_text, answer, sources, "
    "status, confidence, latency_ms, model, created_at"
)
SQLITE_MIGRATIONS = [
    """CREATE TABLE interactions (
        message_id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, session_id TEXT,
        book TEXT NOT NULL, question TEXT NOT NULL, selected_text TEXT, answer TEXT NOT NULL,
        sources TEXT NOT NULL, status TEXT NOT NULL, confidence TEXT NOT NULL,
        latency_ms REAL NOT NULL, model TEXT NOT NULL, created_at TEXT NOT NULL)""",
    "CREATE INDEX interactions_conversation ON interactions (conversation_id, created_at)",
    "CREATE INDEX interactions_book_status ON interactions (book, status, created_at)",
    """CREATE TABLE feedback (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        message_id TEXT NOT NULL REFERENCES interactions (message_id),
        helpful INTEGER NOT NULL, comment TEXT, created_at TEXT NOT NULL)""",
    "CREATE INDEX feedback_message ON feedback (message_id)",
]
POSTGRES_MIGRATIONS = [
    """CREATE TABLE interactions (
        message_id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, session_id TEXT,
        book TEXT NOT NULL, question TEXT NOT NULL, selected_text TEXT, answer TEXT NOT NULL,
        sources JSONB NOT NULL, status TEXT NOT NULL, confidence TEXT NOT NULL,
        latency_ms DOUBLE PRECISION NOT NULL, model TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL)""",
    "CREATE INDEX interactions_conversation ON interactions (conversation_id, created_at)",
    "CREATE INDEX interactions_book_status ON interactions (book, status, created_at)",
    """CREATE TABLE feedback (
        id BIGSERIAL PRIMARY KEY,
        message_id TEXT NOT NULL REFERENCES interactions (message_id),
        helpful BOOLEAN NOT NULL, comment TEXT, created_at TIMESTAMPTZ NOT NULL)""",
    "CREATE INDEX feedback_message ON feedback (message_id)",
]


def _migrations_since_feedback_votes(time: str) -> list[str]:
    """The steps both databases share once the first tables exist; `time` is the column type
    of a point in time."""
    return [
        "ALTER TABLE feedback ADD COLUMN vote_id TEXT",
        "CREATE UNIQUE INDEX feedback_vote ON feedback (vote_id)",
        f"""CREATE TABLE questionnaires (
            id TEXT PRIMARY KEY, book TEXT NOT NULL, name TEXT NOT NULL, header TEXT NOT NULL,
            question_column TEXT NOT NULL, created_at {time} NOT NULL)""",
        "CREATE INDEX questionnaires_book ON questionnaires (book, created_at)",
        """CREATE TABLE questionnaire_rows (
            questionnaire_id TEXT NOT NULL REFERENCES questionnaires (id) ON DELETE CASCADE,
            position INTEGER NOT NULL, cells TEXT NOT NULL, question TEXT NOT NULL,
            generated TEXT, approved_answer TEXT, PRIMARY KEY (questionnaire_id, position))""",
        f"""CREATE TABLE curated_answers (
            id TEXT PRIMARY KEY, book TEXT NOT NULL, question TEXT NOT NULL, answer TEXT NOT NULL,
            citations TEXT NOT NULL, state TEXT NOT NULL, created_at {time} NOT NULL,
            updated_at {time} NOT NULL)""",
        "CREATE INDEX curated_answers_book ON curated_answers (book, state)",
    ]


SQLITE_MIGRATIONS += _migrations_since_feedback_votes("TEXT")
POSTGRES_MIGRATIONS += _migrations_since_feedback_votes("TIMESTAMPTZ")
MIGRATION_LOCK = 7_345_120  # Postgres advisory lock id: one instance migrates at a time


# What a database that is down, restarting or unreachable raises (anything else is a bug or bad data).
UNAVAILABLE = (
    OSError,
    asyncpg.InterfaceError,
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,
    asyncpg.exceptions.InsufficientResourcesError,
    sqlite3.OperationalError,
)


class Rejected(ValueError):
    """The database refused the data itself (not a connection problem): retrying cannot help."""


class Store(ABC):
    """Persistence for answered questions and feedback."""

    migrations: list[str]

    @abstractmethod
    async def execute(self, sql: str, *args: Any) -> None: ...

    @abstractmethod
    async def execute_all(self, steps: list[tuple[str, list[tuple[Any, ...]]]]) -> None:
        """Runs each statement once per row of arguments, all in one transaction."""

    @abstractmethod
    async def fetch(self, sql: str, *args: Any) -> list[dict[str, Any]]: ...

    @abstractmethod
    async def migrate(self) -> None: ...

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    def encode_time(self, value: datetime) -> Any: ...

    @abstractmethod
    def encode_json(self, value: Any) -> Any: ...

    async def ping(self) -> None:
        await self.fetch("SELECT 1 AS ok")

    async def record_interaction(self, item: Interaction) -> None:
        values = item.model_dump()
        values["sources"] = self.encode_json(values["sources"])
        values["created_at"] = self.encode_time(item.created_at)
        placeholders = ", ".join("?" for _ in values)
        await self.execute(
            f"INSERT INTO interactions ({INTERACTION_COLUMNS}) VALUES ({placeholders}) "
            "ON CONFLICT (message_id) DO NOTHING",
            *values.values(),
        )

    async def record_feedback(self, item: Feedback) -> bool:
        """False when no answer has that message id. A voter has one vote per answer: a later
        vote replaces theirs, and the same vote written twice is stored once."""
        known = await self.fetch("SELECT 1 AS ok FROM interactions WHERE message_id = ?", item.message_id)
        if not known:
            return False
        await self.execute(
            "INSERT INTO feedback (vote_id, message_id, helpful, comment, created_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (vote_id) DO UPDATE SET helpful = excluded.helpful, comment = excluded.comment, "
            "created_at = excluded.created_at WHERE feedback.created_at <= excluded.created_at",
            item.vote_id, item.message_id, item.helpful, item.comment, self.encode_time(item.created_at),
        )
        return True

    async def get_interaction(self, message_id: str) -> Interaction | None:
        rows = await self.fetch(
            f"SELECT {INTERACTION_COLUMNS} FROM interactions WHERE message_id = ?", message_id
        )
        return _interaction(rows[0]) if rows else None

    async def history(self, conversation_id: str, book: str, exchanges: int = 5) -> list[Turn]:
        """The conversation's latest exchanges about `book`, oldest first, as turns."""
        rows = await self.fetch(
            "SELECT question, answer FROM interactions WHERE conversation_id = ? AND book = ? "
            "ORDER BY created_at DESC LIMIT ?",
            conversation_id, book, exchanges,
        )
        turns: list[Turn] = []
        for row in reversed(rows):
            turns += [Turn(role="user", content=row["question"]), Turn(role="assistant", content=row["answer"])]
        return turns

    async def stats(self, book: str) -> Stats:
        rows = await self.fetch(
            "SELECT COUNT(*) AS questions, "
            "COALESCE(SUM(CASE WHEN status = 'not_found' THEN 1 ELSE 0 END), 0) AS not_found "
            "FROM interactions WHERE book = ?",
            book,
        )
        votes = await self.fetch(
            "SELECT COALESCE(SUM(CASE WHEN f.helpful THEN 1 ELSE 0 END), 0) AS helpful, "
            "COALESCE(SUM(CASE WHEN f.helpful THEN 0 ELSE 1 END), 0) AS unhelpful "
            "FROM feedback f JOIN interactions i ON i.message_id = f.message_id WHERE i.book = ?",
            book,
        )
        return Stats(**rows[0], **votes[0])

    async def top_questions(
        self, book: str, limit: int = 20, unanswered: bool = False, since: datetime | None = None
    ) -> list[AskedQuestion]:
        """Most asked questions (same text, case-insensitive), optionally only unanswered ones."""
        status = "AND status = 'not_found' " if unanswered else ""
        rows = await self.fetch(
            "SELECT MIN(question) AS question, COUNT(*) AS times, MAX(created_at) AS last_asked "
            f"FROM interactions WHERE book = ? AND created_at >= ? {status}GROUP BY LOWER(question) "
            "ORDER BY times DESC, last_asked DESC LIMIT ?",
            book, self.encode_time(since or _EPOCH), limit,
        )
        return [AskedQuestion(**row) for row in rows]

    async def feedback(self, book: str, limit: int = 20, since: datetime | None = None) -> list[FeedbackEntry]:
        rows = await self.fetch(
            "SELECT i.question, i.answer, f.helpful, f.comment, f.created_at FROM feedback f "
            "JOIN interactions i ON i.message_id = f.message_id WHERE i.book = ? AND f.created_at >= ? "
            "ORDER BY f.created_at DESC LIMIT ?",
            book, self.encode_time(since or _EPOCH), limit,
        )
        return [FeedbackEntry(**row) for row in rows]

    async def vote_counts(self, book: str, since: datetime) -> tuple[int, int]:
        """(helpful, not helpful) votes on the book's answers since `since`."""
        rows = await self.fetch(
            "SELECT COALESCE(SUM(CASE WHEN f.helpful THEN 1 ELSE 0 END), 0) AS helpful, "
            "COALESCE(SUM(CASE WHEN f.helpful THEN 0 ELSE 1 END), 0) AS unhelpful "
            "FROM feedback f JOIN interactions i ON i.message_id = f.message_id "
            "WHERE i.book = ? AND f.created_at >= ?",
            book, self.encode_time(since),
        )
        return int(rows[0]["helpful"]), int(rows[0]["unhelpful"])

    async def answered_since(self, book: str, since: datetime) -> list[dict[str, Any]]:
        """Status, latency and time of every answer since `since`."""
        rows = await self.fetch(
            "SELECT status, latency_ms, created_at FROM interactions WHERE book = ? AND created_at >= ?",
            book, self.encode_time(since),
        )
        return [row | {"created_at": _as_time(row["created_at"])} for row in rows]

    async def gap_questions(self, book: str, since: datetime, limit: int) -> list[dict[str, Any]]:
        """Questions not answered, or answered and voted down, since `since` (same text counted
        together, case-insensitive), the most recent first: {question, times, why}."""
        unanswered = await self.fetch(
            "SELECT MIN(question) AS question, COUNT(*) AS times, MAX(created_at) AS last FROM interactions "
            "WHERE book = ? AND status = 'not_found' AND created_at >= ? GROUP BY LOWER(question)",
            book, self.encode_time(since),
        )
        voted_down = await self.fetch(
            "SELECT MIN(i.question) AS question, COUNT(*) AS times, MAX(f.created_at) AS last FROM feedback f "
            "JOIN interactions i ON i.message_id = f.message_id "
            "WHERE i.book = ? AND NOT f.helpful AND f.created_at >= ? GROUP BY LOWER(i.question)",
            book, self.encode_time(since),
        )
        found: dict[str, dict[str, Any]] = {}
        for rows, why in ((voted_down, "voted down"), (unanswered, "not answered")):
            for row in rows:
                found[row["question"].lower()] = {
                    "question": row["question"], "times": row["times"], "why": why, "last": _as_time(row["last"]),
                }
        latest = sorted(found.values(), key=lambda row: row.pop("last"), reverse=True)
        return latest[:limit]

    async def interactions_since(self, book: str, since: datetime) -> list[Interaction]:
        rows = await self.fetch(
            f"SELECT {INTERACTION_COLUMNS} FROM interactions WHERE book = ? AND created_at >= ? "
            "ORDER BY created_at",
            book, self.encode_time(since),
        )
        return [_interaction(row) for row in rows]

    async def create_questionnaire(self, questionnaire: Questionnaire, rows: list[QuestionnaireRow]) -> None:
        await self.execute_all([
            ("INSERT INTO questionnaires (id, book, name, header, question_column, created_at) VALUES (?, ?, ?, ?, ?, ?)",
             [(questionnaire.id, questionnaire.book, questionnaire.name, json.dumps(questionnaire.header),
               questionnaire.question_column, self.encode_time(questionnaire.created_at))]),
            ("INSERT INTO questionnaire_rows (questionnaire_id, position, cells, question) VALUES (?, ?, ?, ?)",
             [(questionnaire.id, row.position, json.dumps(row.cells), row.question) for row in rows]),
        ])

    async def questionnaires(self, book: str, questionnaire_id: str | None = None) -> list[Questionnaire]:
        where = "AND id = ? " if questionnaire_id else ""
        rows = await self.fetch(
            "SELECT id, book, name, header, question_column, created_at FROM questionnaires "
            f"WHERE book = ? {where}ORDER BY created_at DESC", book, *([questionnaire_id] if questionnaire_id else []),
        )
        return [Questionnaire.model_validate(row | {"header": json.loads(row["header"])}) for row in rows]

    async def questionnaire(self, book: str, questionnaire_id: str) -> Questionnaire | None:
        return next(iter(await self.questionnaires(book, questionnaire_id)), None)

    async def questionnaire_rows(self, questionnaire_id: str) -> list[QuestionnaireRow]:
        rows = await self.fetch(
            "SELECT position, cells, question, generated, approved_answer FROM questionnaire_rows "
            "WHERE questionnaire_id = ? ORDER BY position", questionnaire_id,
        )
        return [
            QuestionnaireRow.model_validate(row | {
                "cells": json.loads(row["cells"]),
                "generated": json.loads(row["generated"]) if row["generated"] else None,
            })
            for row in rows
        ]

    async def unanswered_questionnaires(self) -> list[tuple[str, str]]:
        """(book, id) of questionnaires with questions still to answer (an interrupted run)."""
        rows = await self.fetch(
            "SELECT DISTINCT q.book, q.id FROM questionnaires q JOIN questionnaire_rows r ON r.questionnaire_id = q.id "
            "WHERE r.generated IS NULL AND r.question <> ''",
        )
        return [(row["book"], row["id"]) for row in rows]

    async def save_generated(self, questionnaire_id: str, position: int, generated: GeneratedAnswer) -> None:
        await self.execute(
            "UPDATE questionnaire_rows SET generated = ? WHERE questionnaire_id = ? AND position = ?",
            generated.model_dump_json(), questionnaire_id, position,
        )

    async def set_approval(self, questionnaire_id: str, position: int, answer: str | None) -> None:
        await self.execute(
            "UPDATE questionnaire_rows SET approved_answer = ? WHERE questionnaire_id = ? AND position = ?",
            answer, questionnaire_id, position,
        )

    async def delete_questionnaire(self, questionnaire_id: str) -> None:
        await self.execute("DELETE FROM questionnaires WHERE id = ?", questionnaire_id)  # rows cascade

    async def curated_answers(
        self, book: str, state: str | None = None, curated_id: str | None = None
    ) -> list[CuratedAnswer]:
        filters = {"state": state, "id": curated_id}
        where = "".join(f"AND {column} = ? " for column, value in filters.items() if value)
        rows = await self.fetch(
            "SELECT id, book, question, answer, citations, state, created_at, updated_at FROM curated_answers "
            f"WHERE book = ? {where}ORDER BY updated_at DESC", book, *(value for value in filters.values() if value),
        )
        return [CuratedAnswer.model_validate(row | {"citations": json.loads(row["citations"])}) for row in rows]

    async def save_curated(self, curated: CuratedAnswer) -> None:
        """Inserts it, or replaces the one with its id."""
        await self.execute(
            "INSERT INTO curated_answers (id, book, question, answer, citations, state, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET question = excluded.question, "
            "answer = excluded.answer, citations = excluded.citations, state = excluded.state, "
            "updated_at = excluded.updated_at",
            curated.id, curated.book, curated.question, curated.answer,
            json.dumps([c.model_dump() for c in curated.citations]), curated.state,
            self.encode_time(curated.created_at), self.encode_time(curated.updated_at),
        )

    async def set_curated_state(self, curated_id: str, state: str) -> None:
        await self.execute(
            "UPDATE curated_answers SET state = ?, updated_at = ? WHERE id = ?",
            state, self.encode_time(datetime.now(UTC)), curated_id,
        )

    async def books(self) -> list[str]:
        """Books that readers have asked about."""
        return [row["book"] for row in await self.fetch("SELECT DISTINCT book FROM interactions ORDER BY book")]


class SQLiteStore(Store):
    migrations = SQLITE_MIGRATIONS

    def __init__(self, path: Path):
        self.path = path
        self._db: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()

    async def _connection(self) -> aiosqlite.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = await aiosqlite.connect(self.path)
            self._db.row_factory = aiosqlite.Row
            await self._db.execute("PRAGMA journal_mode=WAL")
            await self._db.execute("PRAGMA foreign_keys=ON")
        return self._db

    async def execute(self, sql: str, *args: Any) -> None:
        async with self._lock:
            db = await self._connection()
            try:
                await db.execute(sql, args)
            except (sqlite3.IntegrityError, sqlite3.DataError) as exc:
                await db.rollback()
                raise Rejected(str(exc)) from exc
            await db.commit()

    async def execute_all(self, steps: list[tuple[str, list[tuple[Any, ...]]]]) -> None:
        async with self._lock:
            db = await self._connection()
            try:
                for sql, rows in steps:
                    await db.executemany(sql, rows)
            except BaseException:
                await db.rollback()
                raise
            await db.commit()

    async def fetch(self, sql: str, *args: Any) -> list[dict[str, Any]]:
        db = await self._connection()
        async with db.execute(sql, args) as cursor:
            return [dict(row) for row in await cursor.fetchall()]

    async def migrate(self) -> None:
        await self.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        async with self._lock:
            db = await self._connection()
            await db.execute("BEGIN IMMEDIATE")
            async with db.execute("SELECT MAX(version) FROM schema_version") as cursor:
                row = await cursor.fetchone()
            current = (row[0] if row else None) or 0
            for version, step in enumerate(self.migrations[current:], start=current + 1):
                await db.execute(step)
                await db.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))
            await db.commit()

    async def close(self) -> None:
        if self._db is not None:
            await self._db.close()
            self._db = None

    def encode_time(self, value: datetime) -> str:
        return value.astimezone(UTC).isoformat()

    def encode_json(self, value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)


class PostgresStore(Store):
    migrations = POSTGRES_MIGRATIONS

    def __init__(self, url: str, timeout: float = 3.0):
        self.url = url
        self.timeout = timeout
        self._pool: asyncpg.Pool | None = None

    async def _acquire_pool(self) -> asyncpg.Pool:
        if self._pool is None:
            self._pool = await asyncpg.create_pool(
                self.url, min_size=1, max_size=10, timeout=self.timeout, command_timeout=self.timeout
            )
        return self._pool

    async def execute(self, sql: str, *args: Any) -> None:
        pool = await self._acquire_pool()
        try:
            await pool.execute(_numbered(sql), *args)
        except (asyncpg.DataError, asyncpg.IntegrityConstraintViolationError) as exc:
            raise Rejected(str(exc)) from exc

    async def execute_all(self, steps: list[tuple[str, list[tuple[Any, ...]]]]) -> None:
        pool = await self._acquire_pool()
        async with pool.acquire() as connection, connection.transaction():
            for sql, rows in steps:
                await connection.executemany(_numbered(sql), rows)

    async def fetch(self, sql: str, *args: Any) -> list[dict[str, Any]]:
        pool = await self._acquire_pool()
        return [dict(row) for row in await pool.fetch(_numbered(sql), *args)]

    async def migrate(self) -> None:
        pool = await self._acquire_pool()
        async with pool.acquire() as connection, connection.transaction():
            await connection.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            await connection.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            current = await connection.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version")
            for version, step in enumerate(self.migrations[current:], start=current + 1):
                await connection.execute(step)
                await connection.execute("INSERT INTO schema_version (version) VALUES ($1)", version)

    async def close(self) -> None:
        if self._pool is not None:
            try:
                await asyncio.wait_for(self._pool.close(), self.timeout)
            except TimeoutError:  # a hung server cannot say goodbye
                self._pool.terminate()
            self._pool = None

    def encode_time(self, value: datetime) -> datetime:
        return value.astimezone(UTC)

    def encode_json(self, value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _as_time(value: datetime | str) -> datetime:
    """SQLite keeps times as ISO text, PostgreSQL as timestamptz."""
    return value if isinstance(value, datetime) else datetime.fromisoformat(value)


def _numbered(sql: str) -> str:
    """`?` placeholders → `$1`, `$2`, … (no query here has a literal question mark)."""
    counter = iter(range(1, 1000))
    return re.sub(r"\?", lambda _: f"${next(counter)}", sql)


def _interaction(row: dict[str, Any]) -> Interaction:
    if isinstance(row["sources"], str):
        row["sources"] = json.loads(row["sources"])
    return Interaction.model_validate(row)
