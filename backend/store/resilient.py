"""Chat keeps answering when the database is down, and nothing it should remember is lost.

Writes that fail go to a spool file (one JSON line each) under the data dir and are retried in
the background with backoff until the database takes them; the spool survives restarts.
"""

import asyncio
import json
import logging
from pathlib import Path

from backend.question import Turn
from backend.store.models import Feedback, Interaction
from backend.store.sql import Store

log = logging.getLogger("lectern.store")
RETRY_FIRST_S = 2.0
RETRY_MAX_S = 60.0
Pending = Interaction | Feedback


class ResilientStore:
    def __init__(self, store: Store, data_dir: Path):
        self.store = store
        self.spool = data_dir / "pending.jsonl"
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._lock = asyncio.Lock()
        self._migrated = False

    async def start(self) -> None:
        try:
            await self._migrate()
        except Exception as exc:
            log.error("database unavailable at start-up (%s); will keep retrying", type(exc).__name__)
        self._task = asyncio.create_task(self._retry_forever())
        self._wake.set()  # flush anything spooled by an earlier run

    async def close(self) -> None:
        if self._task:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self.store.close()

    async def ping(self) -> None:
        await self.store.ping()

    async def record_interaction(self, item: Interaction) -> None:
        try:
            await self.store.record_interaction(item)
        except Exception as exc:
            self._spool(item, exc)

    async def record_feedback(self, item: Feedback) -> bool | None:
        """True/False as the database says; None when it is down and the vote was spooled."""
        try:
            return await self.store.record_feedback(item)
        except Exception as exc:
            self._spool(item, exc)
            return None

    async def history(self, conversation_id: str) -> list[Turn]:
        try:
            return await self.store.history(conversation_id)
        except Exception as exc:
            log.warning("conversation history unavailable (%s)", type(exc).__name__)
            return []

    async def _migrate(self) -> None:
        if not self._migrated:
            await self.store.migrate()
            self._migrated = True

    def _spool(self, item: Pending, exc: Exception) -> None:
        log.error("database write failed (%s); kept in %s for retry", type(exc).__name__, self.spool)
        self.spool.parent.mkdir(parents=True, exist_ok=True)
        with self.spool.open("a", encoding="utf-8") as out:
            out.write(json.dumps({"kind": type(item).__name__, "item": item.model_dump(mode="json")}) + "\n")
        self._wake.set()

    async def flush_pending(self) -> int:
        """Writes spooled entries to the database; returns how many are still pending."""
        async with self._lock:
            if not self.spool.exists():
                return 0
            lines = [line for line in self.spool.read_text(encoding="utf-8").splitlines() if line]
            remaining: list[str] = []
            for line in lines:
                entry = json.loads(line)
                model = Interaction if entry["kind"] == "Interaction" else Feedback
                item = model.model_validate(entry["item"])
                try:
                    if isinstance(item, Interaction):
                        await self.store.record_interaction(item)
                    else:
                        await self.store.record_feedback(item)
                except Exception:
                    remaining.append(line)
            if remaining:
                self.spool.write_text("\n".join(remaining) + "\n", encoding="utf-8")
            else:
                self.spool.unlink(missing_ok=True)
            if lines and len(remaining) < len(lines):
                log.info("wrote %d spooled entries to the database", len(lines) - len(remaining))
            return len(remaining)

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
            except Exception:
                left = 1
            delay = min(delay * 2, RETRY_MAX_S) if left else RETRY_FIRST_S
