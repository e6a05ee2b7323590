"""The Qdrant side of a book: one collection per build, served through an alias.

An ingest writes a complete new collection and then moves the alias `lectern-<book>` to it in
one operation, so readers never see a half-written index; leftovers of an interrupted build are
removed by the next one. The collection's metadata records which embedding model made its
vectors, so a different model triggers a clean rebuild instead of a mix.
"""

import base64
import ctypes
import ctypes.util
import functools
import json
import re
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np
from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException

from backend.breaker import Breaker
from backend.config import Settings
from backend.retrieval.models import Chunk, Page

DENSE = "dense"
# What a point holds besides its dense vector: the chunk, its lexical terms as one string (a
# list of strings costs ten times the memory in embedded Qdrant), on a page's first chunk the
# page, and for a passage longer than the embedding model reads, the windows it was read in
# (`read_whole`): the characters each reads (`spans`) and their vectors, float32 in one base64
# string (`parts`; read back, never searched: as a Qdrant multivector, embedded Qdrant held the
# Python docs' 14,000 in 236 MB, as one string a point in about 30). Bump when it changes: the next ingest then rebuilds the points (re-using vectors).
POINT_FORMAT = "chunk+terms+first-page+parts/3"
# Points read per call: embedded Qdrant sorts every id of the collection on each call, so small
# pages make reading a big book quadratic; a server's responses stay a few MB.
SCROLL_PAGE = 4096
BUILD_TAG_DIGITS = 6  # a build is named "<alias>-<time to the second>-<this many hex digits>"
BOOK_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")


class IndexUnavailable(RuntimeError):
    """The vector store cannot be reached or opened."""


class IndexInUse(IndexUnavailable):
    """The embedded index is open in another process (embedded Qdrant allows one per folder)."""


class BookNotIngested(LookupError):
    """No index exists yet for the requested book."""


@dataclass
class ScoredChunk:
    chunk: Chunk
    score: float


@dataclass
class WindowVectors:
    """The windows a passage was embedded in: the characters of its text each reads, and their
    vectors (float32, a row each)."""

    spans: list[tuple[int, int]]
    vectors: np.ndarray


@dataclass
class StoredPoint:
    content_hash: str
    embedding_hash: str
    dense: np.ndarray  # float32: a book's vectors as Python floats would take six times the memory
    windows: WindowVectors | None = None  # for a passage read in more than one


def open_client(settings: Settings, check: bool = True, timeout: float | None = None) -> QdrantClient:
    """Qdrant server/Cloud when QDRANT_URL is set, else embedded local mode under the data dir.
    With `check`, an unreachable server fails here rather than at first use. `timeout` (else
    the dependency timeout readers wait at most) bounds each call to a server."""
    if settings.qdrant_url:
        key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        server = QdrantClient(
            url=settings.qdrant_url, api_key=key, timeout=timeout or settings.dependency_timeout,  # type: ignore[arg-type]
            check_compatibility=False,
        )
        client = cast(QdrantClient, _Guarded(server, settings.qdrant_url))
        if check:
            client.get_collections()
        return client
    path = settings.qdrant_path
    try:
        path.mkdir(parents=True, exist_ok=True)
        client = QdrantClient(path=str(path))
        _return_freed_memory()
        return cast(QdrantClient, _OneCallAtATime(client))
    except RuntimeError as exc:
        if "already accessed" in str(exc):
            raise IndexInUse(
                f"the index at {path} is open in another Lectern process "
                "(stop it, or use a Qdrant server via QDRANT_URL)"
            ) from exc
        raise
    except (OSError, ValueError, sqlite3.Error) as exc:  # ValueError: meta.json is not valid JSON
        raise IndexUnavailable(damaged(path, exc)) from exc


def _return_freed_memory() -> None:
    """Embedded Qdrant loads a collection by unpickling every point, its vector as Python
    floats, copies the vectors into one array and frees the floats; the C library keeps that
    freed heap in the process (70 MB of a 10,000-passage book), where the book's passages and
    the model would otherwise be added on top. Hand it back to the system (glibc only)."""
    try:
        ctypes.CDLL(ctypes.util.find_library("c")).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to hand back this way
        pass


def damaged(path: Path, exc: BaseException) -> str:
    return (f"the index at {path} is damaged ({type(exc).__name__}: {exc}); "
            "delete that folder and run `lectern ingest` again")


def local_index_problem(path: Path) -> str | None:
    """What is wrong with the embedded index's files on disk, if anything: the store keeps the
    book in memory while serving, so damage done under a running server shows only here."""
    try:
        json.loads((path / "meta.json").read_text(encoding="utf-8"))
        for storage in (path / "collection").glob("*/storage.sqlite"):
            with storage.open("rb") as file:
                if file.read(16) != b"SQLite format 3\x00":
                    return damaged(path, ValueError(f"{storage.parent.name}: not a collection file"))
    except (OSError, ValueError) as exc:
        return damaged(path, exc)
    return None


class _Guarded:
    """A Qdrant server that stops answering costs one timeout, then fails fast while a single
    call at a time probes it (see backend/breaker.py): readers get a 503 in milliseconds."""

    def __init__(self, client: QdrantClient, url: str):
        self._client = client
        self._url = url
        self.breaker = Breaker()

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if not callable(attribute) or name == "close":
            return attribute

        @functools.wraps(attribute)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            if not self.breaker.allow():
                raise IndexUnavailable(
                    f"Qdrant at {self._url} is not answering (next try in {self.breaker.retry_in()} s)"
                )
            try:
                result = attribute(*args, **kwargs)
            except (ResponseHandlingException, OSError) as exc:  # timeouts and refused connections
                self.breaker.failed()
                raise IndexUnavailable(f"cannot reach Qdrant at {self._url}: {exc}") from exc
            self.breaker.succeeded()
            return result

        return guarded


class _OneCallAtATime:
    """Embedded Qdrant keeps its collections in plain dicts and is not thread-safe; readers'
    searches and a re-ingest in the same process (`lectern serve --watch`) take turns."""

    def __init__(self, client: QdrantClient):
        self._client = client
        self._lock = threading.RLock()

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if not callable(attribute):
            return attribute

        @functools.wraps(attribute)
        def one_at_a_time(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return attribute(*args, **kwargs)

        return one_at_a_time


def validate_book_id(book: str) -> str:
    if not BOOK_ID.match(book):
        raise ValueError(
            f"invalid book id {book!r}: use lower-case letters, digits, '-' or '_' (max 63)"
        )
    return book


class BookIndex:
    def __init__(self, client: QdrantClient, book: str):
        self.client = client
        self.book = validate_book_id(book)
        self.alias = f"lectern-{book}"

    # --- build side -------------------------------------------------------------------------

    def current_collection(self) -> str | None:
        for alias in self.client.get_aliases().aliases:
            if alias.alias_name == self.alias:
                return alias.collection_name
        return None

    def add_metadata(self, extra: dict[str, Any]) -> None:
        """Adds keys to the served collection's metadata (measurements made once it is built)."""
        name = self._served()
        self.client.update_collection(name, metadata=self.metadata() | extra)

    def metadata(self) -> dict[str, Any]:
        name = self.current_collection()
        if name is None:
            return {}
        return dict(self.client.get_collection(name).config.metadata or {})

    def stored_points(self) -> dict[str, StoredPoint]:
        """Hash and dense vector of every chunk in the served collection, by chunk id."""
        name = self.current_collection()
        points: dict[str, StoredPoint] = {}
        if name is None:
            return points
        for point in self._scroll(name, with_payload=["hash", "embed_hash", "spans", "parts"], with_vectors=[DENSE]):
            vector = point.vector.get(DENSE) if isinstance(point.vector, dict) else None
            if point.payload and isinstance(vector, list):
                payload = point.payload
                points[str(point.id)] = StoredPoint(
                    payload["hash"], payload.get("embed_hash", ""), np.asarray(vector, dtype=np.float32),
                    _window_vectors(point))
        return points

    def publish(
        self,
        entries: Sequence[tuple[Chunk, Page, Sequence[float], list[str], WindowVectors | None]],
        metadata: dict[str, Any],
        dimension: int,
    ) -> str:
        """Writes a complete new collection, then atomically points the alias at it. Each entry
        is a chunk, its page, its dense vector, its lexical terms (stored, so that loading the
        book need not analyse every passage again) and its windows' vectors, if it was read in
        several."""
        name = f"{self.alias}-{time.strftime('%Y%m%d%H%M%S')}-{uuid.uuid4().hex[:BUILD_TAG_DIGITS]}"
        self.client.create_collection(
            name,
            vectors_config={DENSE: models.VectorParams(size=dimension, distance=models.Distance.COSINE)},
            metadata=metadata | {"points": POINT_FORMAT},
        )
        for start in range(0, len(entries), 256):  # points made a batch at a time: less memory
            self.client.upsert(name, [
                models.PointStruct(
                    id=chunk.id,
                    vector={DENSE: np.asarray(dense, dtype=np.float32).tolist()},
                    payload={
                        **chunk.model_dump(),
                        "hash": chunk.content_hash,
                        "embed_hash": chunk.embedding_hash,
                        "terms": " ".join(terms),
                        **({"spans": [list(span) for span in windows.spans], "parts": _packed(windows.vectors)}
                           if windows else {}),
                        **({"page": page.model_dump()} if chunk.position == 0 else {}),
                    },
                )
                for chunk, page, dense, terms, windows in entries[start : start + 256]
            ], wait=True)
        operations: list[models.CreateAliasOperation | models.DeleteAliasOperation] = []
        if self.current_collection():
            operations.append(
                models.DeleteAliasOperation(delete_alias=models.DeleteAlias(alias_name=self.alias))
            )
        operations.append(
            models.CreateAliasOperation(
                create_alias=models.CreateAlias(collection_name=name, alias_name=self.alias)
            )
        )
        self.client.update_collection_aliases(operations)
        self.remove_stale_collections()
        return name

    def drop(self) -> None:
        """Removes the book's index: its alias and every build."""
        if self.current_collection():
            self.client.update_collection_aliases(
                [models.DeleteAliasOperation(delete_alias=models.DeleteAlias(alias_name=self.alias))]
            )
        self.remove_stale_collections()

    def remove_stale_collections(self) -> None:
        """Drops this book's collections that the alias does not point at (old or unfinished)."""
        current = self.current_collection()
        for collection in self.client.get_collections().collections:
            if self._is_build(collection.name) and collection.name != current:
                self.client.delete_collection(collection.name)

    def _is_build(self, name: str) -> bool:
        """Whether the collection is one of this book's builds (as `publish` names them). Its
        alias alone is no test: book `gap`'s builds and book `gap-tutorial`'s both start "lectern-gap-"."""
        return re.fullmatch(rf"{re.escape(self.alias)}-\d{{14}}-[0-9a-f]{{{BUILD_TAG_DIGITS}}}", name) is not None

    # --- read side --------------------------------------------------------------------------

    def _served(self) -> str:
        name = self.current_collection()
        if name is None:
            raise BookNotIngested(f"book {self.book!r} has not been ingested yet")
        return name

    def chunks_with_vectors(
        self,
    ) -> tuple[list[Chunk], np.ndarray, list[str | None], list[WindowVectors | None]]:
        """Every chunk of the served collection (in page order), its dense vector (a float32
        row), its lexical terms as ingest stored them, space-separated (None from a build
        that did not store them so) and its windows' vectors (None for a passage read in one,
        or from a build that did not keep them). Each page of points is converted as it
        arrives: a vector as Python floats takes six times the memory."""
        name = self._served()
        chunks: list[Chunk] = []
        vectors: list[np.ndarray] = []
        terms: list[str | None] = []
        windows: list[WindowVectors | None] = []
        for point in self._scroll(name, with_payload=True, with_vectors=[DENSE]):
            dense = point.vector.get(DENSE) if isinstance(point.vector, dict) else None
            if point.payload and isinstance(dense, list):
                chunks.append(_chunk(point.payload))
                vectors.append(np.asarray(dense, dtype=np.float32))
                stored = point.payload.get("terms")
                terms.append(stored if isinstance(stored, str) else None)
                windows.append(_window_vectors(point))
        order = sorted(range(len(chunks)), key=lambda i: (chunks[i].source_path, chunks[i].position))
        matrix = np.stack([vectors[i] for i in order]) if order else np.zeros((0, 0), dtype=np.float32)
        return [chunks[i] for i in order], matrix, [terms[i] for i in order], [windows[i] for i in order]

    def pages(self) -> list[Page]:
        points = self._scroll(self._served(), scroll_filter=match(position=0), with_payload=["page"])
        return sorted((Page.model_validate(p.payload["page"]) for p in points if p.payload),
                      key=lambda page: (page.order, page.source_path))

    def _scroll(self, name: str, **options: Any) -> Iterator[models.Record]:
        """Every point of a collection that `options` (scroll's) select, SCROLL_PAGE at a time."""
        offset = None
        while True:
            points, offset = self.client.scroll(name, limit=SCROLL_PAGE, offset=offset, **options)
            yield from points
            if offset is None:
                return


def match(**fields: str | int) -> models.Filter:
    return models.Filter(
        must=[
            models.FieldCondition(key=key, match=models.MatchValue(value=value))
            for key, value in fields.items()
        ]
    )


def _chunk(payload: dict[str, Any]) -> Chunk:
    return Chunk.model_validate(
        {k: v for k, v in payload.items() if k not in ("hash", "embed_hash", "page", "terms", "spans", "parts")}
    )


def _packed(vectors: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(vectors, dtype="<f4").tobytes()).decode("ascii")


def _window_vectors(point: models.Record) -> WindowVectors | None:
    """The windows a point's passage was read in, from its `spans` and `parts`, if it has them."""
    payload = point.payload or {}
    spans, parts = payload.get("spans"), payload.get("parts")
    if not isinstance(spans, list) or not isinstance(parts, str) or not spans:
        return None
    vectors = np.frombuffer(base64.b64decode(parts), dtype="<f4").astype(np.float32)
    if vectors.size % len(spans):
        return None
    return WindowVectors([(int(start), int(end)) for start, end in spans], vectors.reshape(len(spans), -1))
