"""Chat keeps answering when the database is down or hangs, and nothing it should remember is lost.

Every database call gets `timeout` seconds; one that fails or times out opens a breaker, and
while it is open calls do not wait at all (see backend/breaker.py). Writes that fail go to a
spool file (one JSON line each) under the data dir and are retried in the background with
backoff until the database takes them; the spool survives restarts. Each write is idempotent
(an answer by its message id, a vote by its voter and answer), so one that reached the database
before its timeout is not stored twice when the spool replays it. An entry the database rejects
for what it contains, or a line that cannot be read, moves to `rejected.jsonl` with the reason
instead of holding up the entries behind it.
"""

import asyncio
import json
import logging
import os
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from pydantic import ValidationError

from backend.breaker import Breaker
from backend.question import Turn
from backend.store.models import Feedback, Interaction
from backend.store.sql import UNAVAILABLE, Rejected, Store

log = logging.getLogger("lectern.store")
RETRY_FIRST_S = 2.0
RETRY_MAX_S = 60.0
Pending = Interaction | Feedback
T = TypeVar("T")


class DatabaseUnavailable(ConnectionError):
    """The database is down, hung, or known to be so (breaker open)."""


class ResilientStore:
    def __init__(self, store: Store, data_dir: Path, timeout: float = 3.0):
        self.store = store
        self.timeout = timeout
        self.spool = data_dir / "pending.jsonl"
        self.rejected = data_dir / "rejected.jsonl"
        self.breaker = Breaker()
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._lock = asyncio.Lock()
        self._migrated = False

    async def start(self) -> None:
        try:
            await self._migrate()
        except DatabaseUnavailable as exc:
            log.error("database unavailable at start-up (%s); will keep retrying", exc)
        self._task = asyncio.create_task(self._retry_forever())
        self._wake.set()  # flush anything spooled by an earlier run

    async def close(self) -> None:
        if self._task:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self.store.close()

    async def ping(self) -> None:
        await self._call(self.store.ping, probe=True)

    def pending(self) -> int:
        """Entries waiting in the spool for the database."""
        try:
            with self.spool.open("rb") as spool:
                return sum(1 for line in spool if line.strip())
        except FileNotFoundError:
            return 0

    async def record_interaction(self, item: Interaction) -> None:
        try:
            await self._call(lambda: self.store.record_interaction(item))
        except DatabaseUnavailable as exc:
            self._spool(item, exc)
        except Rejected as exc:
            self._reject(_entry(item), exc)

    async def record_feedback(self, item: Feedback) -> bool | None:
        """True/False as the database says; None when the vote was spooled: the database is
        down, or the answer voted on is itself still in the spool."""
        try:
            known = await self._call(lambda: self.store.record_feedback(item))
            if not known and self._spooled(item.message_id):
                self._spool(item, LookupError("its answer is still in the spool"))
                return None
            return known
        except DatabaseUnavailable as exc:
            self._spool(item, exc)
            return None
        except Rejected as exc:
            self._reject(_entry(item), exc)
            return None

    async def history(self, conversation_id: str, book: str) -> list[Turn]:
        try:
            return await self._call(lambda: self.store.history(conversation_id, book))
        except (DatabaseUnavailable, Rejected) as exc:
            log.warning("conversation history unavailable (%s)", exc)
            return []

    async def run(self, query: Callable[[Store], Awaitable[T]]) -> T:
        """An operation the caller waits for (the maintainer console), within the timeout:
        DatabaseUnavailable when the database is down; nothing is spooled."""
        try:
            return await self._call(lambda: query(self.store))
        except Rejected as exc:
            raise DatabaseUnavailable(str(exc)) from exc

    async def _call(self, operation: Callable[[], Awaitable[T]], probe: bool = False) -> T:
        """One database operation within the timeout; DatabaseUnavailable when it fails, hangs
        or the breaker says it would (health checks, `probe`, always try)."""
        if not probe and not self.breaker.allow():
            raise DatabaseUnavailable(f"the database is down (next try in {self.breaker.retry_in()} s)")
        was_down = self.breaker.is_open
        try:
            result = await asyncio.wait_for(operation(), self.timeout)
        except Rejected:
            self.breaker.succeeded()  # it answered: it is up, it just refused this entry
            raise
        except TimeoutError:
            self.breaker.failed()
            raise DatabaseUnavailable(f"no answer within {self.timeout:g} s") from None
        except UNAVAILABLE as exc:  # connection refused, reset, server shutting down, …
            self.breaker.failed()
            raise DatabaseUnavailable(f"{type(exc).__name__}: {exc}") from exc
        self.breaker.succeeded()
        if was_down:
            self._wake.set()  # it is back: write the spool now, not at the end of the backoff
        return result

    async def _migrate(self) -> None:
        if not self._migrated:
            await self._call(self.store.migrate, probe=True)
            self._migrated = True

    def _spooled(self, message_id: str) -> bool:
        """Whether the answer `message_id` waits in the spool."""
        try:
            lines = self.spool.read_text(encoding="utf-8", errors="replace").splitlines()
        except FileNotFoundError:
            return False
        for line in lines:
            try:
                entry = json.loads(line)
                if entry["kind"] == "Interaction" and entry["item"]["message_id"] == message_id:
                    return True
            except (ValueError, KeyError, TypeError):
                continue
        return False

    def _spool(self, item: Pending, exc: Exception) -> None:
        log.error("database write failed (%s); kept in %s for retry", exc, self.spool)
        _append(self.spool, [_entry(item)])
        self._wake.set()

    def _reject(self, line: str, reason: Exception | str) -> None:
        log.error("the database refused an entry (%s); moved to %s", reason, self.rejected)
        record = {"rejected_at": datetime.now(UTC).isoformat(), "reason": str(reason), "entry": line}
        _append(self.rejected, [json.dumps(record, ensure_ascii=False)])

    async def flush_pending(self) -> int:
        """Writes spooled entries to the database, oldest first; returns how many are still
        pending. Entries spooled while it runs are kept: the spool is re-read before it is
        replaced, and the replacement is atomic (no await between the two)."""
        async with self._lock:
            try:
                data = self.spool.read_bytes()
            except FileNotFoundError:
                return 0
            lines = [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
            remaining: list[str] = []
            for number, line in enumerate(lines):
                try:
                    item = _item(line)
                except (ValueError, ValidationError, KeyError) as exc:
                    self._reject(line, f"unreadable spool line: {exc}")
                    continue
                try:
                    await self._write(item)
                except DatabaseUnavailable:
                    remaining = lines[number:]  # still down: keep the rest in order for the next try
                    break
                except Rejected as exc:
                    self._reject(line, exc)
            written = len(lines) - len(remaining)
            arrived = self.spool.read_bytes()[len(data):] if self.spool.exists() else b""
            kept = "".join(line + "\n" for line in remaining).encode() + arrived
            if kept:
                _replace(self.spool, kept)
            else:
                self.spool.unlink(missing_ok=True)
            if written:
                log.info("wrote %d spooled entries to the database", written)
            return len(remaining) + arrived.count(b"\n")

    async def _write(self, item: Pending) -> None:
        if isinstance(item, Interaction):
            await self._call(lambda: self.store.record_interaction(item), probe=True)
        else:
            await self._call(lambda: self.store.record_feedback(item), probe=True)

    async def _retry_forever(self) -> None:
        delay = RETRY_FIRST_S
        while True:
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=delay)
            except TimeoutError:
                pass
            self._wake.clear()
            try:
                await self._migrate()
                left = await self.flush_pending()
            except DatabaseUnavailable:
                left = 1
            delay = min(delay * 2, RETRY_MAX_S) if left else RETRY_FIRST_S


def _entry(item: Pending) -> str:
    return json.dumps({"kind": type(item).__name__, "item": item.model_dump(mode="json")}, ensure_ascii=False)


def _item(line: str) -> Pending:
    entry = json.loads(line)
    model = {"Interaction": Interaction, "Feedback": Feedback}[entry["kind"]]
    return model.model_validate(entry["item"])


def _append(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write("".join(line + "\n" for line in lines))


def _replace(path: Path, data: bytes) -> None:
    partial = path.with_suffix(".tmp")
    partial.write_bytes(data)
    os.replace(partial, path)
