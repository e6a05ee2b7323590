"""Ingest runs against embedded Qdrant with the real local model: incremental updates, model
changes, interruptions and the `lectern ingest` command line."""

import hashlib
import itertools
import json
import math
import os
import random
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import QdrantClient
from typer.testing import CliRunner

from backend.cli import app
from backend.retrieval import lexical
from backend.retrieval.calibration import calibrate
from backend.retrieval.embeddings import (
    MAX_TOKENS,
    TOKENIZER,
    WINDOWS,
    Embedder,
    EmbeddingError,
    LocalEmbedder,
    read_as_one,
    read_whole,
)
from backend.retrieval.index import POINT_FORMAT, BookIndex
from backend.retrieval.models import Chunk
from backend.retrieval.search import RetrievalMode, Retriever
from ingest_scripts.pipeline import IngestError, IngestReport, ingest, plan_book
from tests.support.books import SHARED_BOOK, local_embedder, write_book

VOCABULARY = ["robot", "sensor", "joint", "motor", "camera", "frame", "signal", "torque", "balance", "gait", "planner", "map", "lidar", "depth", "policy", "reward", "gripper", "wheel", "battery", "servo", "encoder", "filter", "kalman", "odometry"]


class HashingEmbedder:
    """A small, real provider: hashed bag of words. Another `name` means another vector space."""

    def __init__(self, name: str = "test:hashing-64", dimension: int = 64):
        self.name = name
        self._dimension = dimension

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)

    windows = staticmethod(read_as_one)

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * self._dimension
        for word in re.findall(r"\w+", text.lower()):
            vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % self._dimension] += 1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]


def prose(seed: str, words: int = 45) -> str:
    rnd = random.Random(seed)
    return f"{seed} covers " + " ".join(rnd.choice(VOCABULARY) for _ in range(words)) + "."


def page(title: str, sections: int = 2) -> str:
    body = "\n\n".join(f"## {title} part {s}\n\n{prose(f'{title}{s}')}" for s in range(sections))
    return f"---\ntitle: {title}\n---\n# {title}\n\n{body}\n"


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    """The real all-MiniLM-L6-v2, loaded once (shared with the other test modules)."""
    return local_embedder()


@pytest.fixture
def index(tmp_path: Path) -> Iterator[BookIndex]:
    client = QdrantClient(path=str(tmp_path / "qdrant"))
    yield BookIndex(client, "tiny")
    client.close()


@pytest.fixture
def book(tmp_path: Path) -> Path:
    return write_book(tmp_path / "docs", {
        "01-a/_category_.json": '{"label": "Part A"}',
        "01-a/01-one.md": page("One"),
        "01-a/02-two.md": page("Two"),
        "02-b/01-three.md": page("Three"),
    })


def run(root: Path, index: BookIndex, embedder: LocalEmbedder | HashingEmbedder,
        base_url: str = "") -> IngestReport:
    return ingest(plan_book(root, index.book, base_url), index, embedder)


def ranked(index: BookIndex, embedder: Embedder, query: str, limit: int, mode: RetrievalMode = "hybrid") -> list[Chunk]:
    """The chunks the served build ranks first for a query."""
    return [hit.chunk for hit in Retriever(index, embedder, mode).search(query, limit).hits]


def vectors_by_id(index: BookIndex) -> dict[str, list[float]]:
    chunks, vectors, *_ = index.chunks_with_vectors()
    return {chunk.id: vector.tolist() for chunk, vector in zip(chunks, vectors, strict=True)}


def same_vector(a: list[float], b: list[float]) -> bool:
    """A vector reused as is: Qdrant divides a cosine vector by its norm again on every write,
    which may move its last bit (a re-embedded one differs in the second decimal)."""
    return bool(np.allclose(a, b, rtol=0, atol=1e-6))


def collection_names(client: QdrantClient) -> list[str]:
    return sorted(c.name for c in client.get_collections().collections)


# --- incremental ingest ---------------------------------------------------------------------


def test_first_ingest_embeds_everything(book: Path, index: BookIndex, embedder: LocalEmbedder) -> None:
    report = run(book, index, embedder)
    assert (report.pages, report.chunks, report.embedded, report.reused) == (3, 6, 6, 0)
    assert not report.unchanged and report.rebuild_reason is None
    assert report.collection == index.current_collection()
    metadata = index.metadata()
    assert metadata.pop("calibration") == report.calibration.model_dump()
    assert re.fullmatch(r"[0-9a-f]{32}", metadata.pop("pages"))  # a digest of the pages' records
    assert metadata == {
        "embedder": embedder.name, "dimension": 384, "book": "tiny", "analyzer": lexical.ANALYZER, "points": POINT_FORMAT,
        "windows": WINDOWS}
    chunks, vectors, *_ = index.chunks_with_vectors()
    assert len(chunks) == 6 and all(len(v) == 384 for v in vectors)
    assert {c.module for c in chunks if c.source_path.startswith("01-a/")} == {"Part A"}
    assert {c.module for c in chunks if c.source_path.startswith("02-b/")} == {""}
    assert [p.source_path for p in index.pages()] == ["01-a/01-one.md", "01-a/02-two.md", "02-b/01-three.md"]


def test_ingest_calibrates_the_book_deterministically(
    book: Path, index: BookIndex, embedder: LocalEmbedder
) -> None:
    """What an everyday question scores on this book is measured at ingest, stored with the
    build, and the same when measured again (an index without it is measured at load)."""
    report = run(book, index, embedder)
    assert report.calibration is not None and report.calibration.probes >= 30
    assert 0 < report.calibration.off_topic_similarity < 1
    assert 0 < report.calibration.answerable < report.calibration.confident < 1
    assert calibrate(Retriever(index, embedder).probe) == report.calibration


def test_unchanged_book_is_not_re_embedded(book: Path, index: BookIndex, embedder: LocalEmbedder) -> None:
    first = run(book, index, embedder)
    again = run(book, index, embedder)
    assert again.unchanged and again.embedded == 0 and again.reused == 6
    assert again.collection == first.collection == index.current_collection()
    assert collection_names(index.client) == [first.collection]


def test_editing_one_page_re_embeds_only_its_changed_chunks(
    book: Path, index: BookIndex, embedder: LocalEmbedder
) -> None:
    run(book, index, embedder)
    before = vectors_by_id(index)
    two = book / "01-a/02-two.md"
    two.write_text(two.read_text().replace(prose("Two1"), prose("Two1 rewritten")))
    report = run(book, index, embedder)
    assert not report.unchanged
    assert (report.embedded, report.reused, report.removed, report.chunks) == (1, 5, 0, 6)
    after = vectors_by_id(index)
    assert after.keys() == before.keys()
    changed = [chunk_id for chunk_id in before if not same_vector(after[chunk_id], before[chunk_id])]
    assert len(changed) == 1  # the edited section; every other vector is reused as is
    chunks = {c.id: c for c in index.chunks_with_vectors()[0]}
    assert chunks[changed[0]].source_path == "01-a/02-two.md" and chunks[changed[0]].position == 1
    assert collection_names(index.client) == [report.collection]  # the old build is gone


def test_removing_and_adding_pages(book: Path, index: BookIndex, embedder: LocalEmbedder) -> None:
    run(book, index, embedder)
    (book / "02-b/01-three.md").unlink()
    removed = run(book, index, embedder)
    assert (removed.pages, removed.chunks, removed.embedded, removed.removed) == (2, 4, 0, 2)
    assert {c.source_path for c in index.chunks_with_vectors()[0]} == {"01-a/01-one.md", "01-a/02-two.md"}

    (book / "02-b/02-four.md").write_text(page("Four", sections=3))
    added = run(book, index, embedder)
    assert (added.pages, added.chunks, added.embedded, added.reused, added.removed) == (3, 7, 3, 4, 0)
    sources = [c.source_path for c in index.chunks_with_vectors()[0]]
    assert sources.count("02-b/02-four.md") == 3 and "02-b/01-three.md" not in sources
    hits = ranked(index, embedder, prose("Four2"), 3)
    assert hits[0].source_path == "02-b/02-four.md"


def test_a_new_reading_order_or_description_is_published_without_re_embedding(
    tmp_path: Path, index: BookIndex, embedder: LocalEmbedder
) -> None:
    """The pages' records change while no passage does: the order of an MkDocs nav, a front
    matter description."""
    files = {"docs/one.md": page("One"), "docs/two.md": page("Two")}
    nav = "site_name: Tiny\nnav:\n  - {first}.md\n  - {second}.md\n"
    root = write_book(tmp_path / "site", files | {"mkdocs.yml": nav.format(first="two", second="one")})
    run(root, index, embedder)
    assert [(p.source_path, p.order) for p in index.pages()] == [("docs/two.md", 0), ("docs/one.md", 1)]
    (root / "mkdocs.yml").write_text(nav.format(first="one", second="two"))
    reordered = run(root, index, embedder)
    assert not reordered.unchanged and reordered.embedded == 0
    assert [p.source_path for p in index.pages()] == ["docs/one.md", "docs/two.md"]
    (root / "docs/one.md").write_text(page("One").replace("title: One", "title: One\ndescription: The first."))
    described = run(root, index, embedder)
    assert not described.unchanged and described.embedded == 0
    assert index.pages()[0].description == "The first."
    assert run(root, index, embedder).unchanged


def test_a_new_base_url_updates_links_without_re_embedding(
    book: Path, index: BookIndex, embedder: LocalEmbedder
) -> None:
    run(book, index, embedder)
    report = run(book, index, embedder, base_url="https://book.example")
    assert not report.unchanged and report.embedded == 0 and report.reused == 6
    assert all(c.url.startswith("https://book.example/docs/") for c in index.chunks_with_vectors()[0])


def test_a_new_lexical_analyzer_rebuilds_sparse_vectors_without_re_embedding(
    book: Path, index: BookIndex, embedder: LocalEmbedder
) -> None:
    """An index written by an older `lexical.terms` must not pass as unchanged: its BM25
    vectors no longer match the queries."""
    first = run(book, index, embedder)
    before = vectors_by_id(index)
    index.client.update_collection(
        first.collection or "", metadata={**index.metadata(), "analyzer": "an-older-analyzer"})
    report = run(book, index, embedder)
    assert not report.unchanged and report.rebuild_reason is None
    assert (report.embedded, report.reused) == (0, 6)
    assert index.metadata()["analyzer"] == lexical.ANALYZER
    after = vectors_by_id(index)
    assert after.keys() == before.keys() and all(same_vector(after[i], before[i]) for i in before)
    assert run(book, index, embedder).unchanged


def test_a_different_embedding_model_forces_a_clean_rebuild(
    book: Path, index: BookIndex, embedder: LocalEmbedder
) -> None:
    run(book, index, embedder)
    hashing = HashingEmbedder()
    report = run(book, index, hashing)
    assert report.rebuild_reason and embedder.name in report.rebuild_reason
    assert hashing.name in report.rebuild_reason
    assert report.embedded == report.chunks == 6 and report.reused == 0
    metadata = index.metadata()
    assert metadata.pop("calibration") == report.calibration.model_dump()  # measured anew
    assert metadata.pop("pages")
    assert metadata == {
        "embedder": hashing.name, "dimension": 64, "book": "tiny", "analyzer": lexical.ANALYZER, "points": POINT_FORMAT,
        "windows": WINDOWS}
    assert all(len(v) == 64 for v in index.chunks_with_vectors()[1])
    assert collection_names(index.client) == [report.collection]
    query = prose("Three1")
    hits = ranked(index, hashing, query, 3)
    assert hits[0].source_path == "02-b/01-three.md" and hits[0].position == 1
    dense_only = ranked(index, hashing, query, 1, mode="dense")
    assert dense_only[0].source_path == "02-b/01-three.md"

    back = run(book, index, embedder)  # and back again: another full rebuild, 384 dimensions
    assert back.rebuild_reason and back.embedded == 6
    assert index.metadata()["dimension"] == 384


def test_leftovers_of_an_interrupted_publish_are_removed(
    book: Path, index: BookIndex, embedder: LocalEmbedder
) -> None:
    """A build killed between creating its collection and moving the alias leaves exactly this."""
    first = run(book, index, embedder)
    leftover = f"{index.alias}-20990101000000-dead00"
    index.client.create_collection(leftover, vectors_config={})
    index.client.create_collection("someone-else", vectors_config={})
    assert index.current_collection() == first.collection
    assert len(index.chunks_with_vectors()[0]) == 6
    (book / "01-a/01-one.md").write_text(page("One", sections=3))
    second = run(book, index, embedder)
    assert collection_names(index.client) == sorted([second.collection or "", "someone-else"])


def test_ingesting_a_book_keeps_the_index_of_a_book_whose_id_extends_its_id(
    book: Path, index: BookIndex, embedder: LocalEmbedder
) -> None:
    """Book `tiny`'s builds and book `tiny-pdf`'s both start "lectern-tiny-": each ingest
    removes its own old builds only."""
    longer = BookIndex(index.client, "tiny-pdf")
    kept = run(book, longer, embedder).collection
    run(book, index, embedder)
    (book / "01-a/01-one.md").write_text(page("One", sections=3))
    run(book, index, embedder)  # replaces tiny's build: the stale-build sweep runs
    assert longer.current_collection() == kept
    assert len(longer.chunks_with_vectors()[0]) == 6
    index.drop()
    assert longer.current_collection() == kept and index.current_collection() is None


# --- a killed `lectern ingest` ----------------------------------------------------------------


def lectern_command() -> list[str]:
    script = Path(sys.executable).parent / "lectern"
    return [str(script)] if script.exists() else [sys.executable, "-c", "from backend.cli import app; app()"]


def cli_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LECTERN_", "QDRANT_"))}
    # Rich draws its progress bar only on a terminal; these make it draw into our pipe too.
    return env | {"LECTERN_EMBEDDINGS": "local", "TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "1",
                  "COLUMNS": "120"}


class ProgressWatcher:
    """Reads the ingest's stderr and notes when embedding is under way (done > 0, not finished)."""

    def __init__(self, process: subprocess.Popen[bytes]):
        self.embedding = threading.Event()
        self.seen = ""
        self.progress: tuple[int, int] | None = None
        self._thread = threading.Thread(target=self._read, args=(process,), daemon=True)
        self._thread.start()

    def _read(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stderr is not None
        while chunk := process.stderr.read1(4096):
            self.seen = (self.seen + chunk.decode(errors="replace"))[-4000:]
            for done, total in re.findall(r"(\d+)/(\d+)", self.seen):
                if 0 < int(done) < int(total):
                    self.progress = (int(done), int(total))
                    self.embedding.set()


def test_killed_ingest_leaves_the_served_index_whole(
    tmp_path: Path, embedder: LocalEmbedder
) -> None:
    data = tmp_path / "data"
    old = write_book(tmp_path / "old", {"01-one.md": page("One"), "02-two.md": page("Two")})
    client = QdrantClient(path=str(data / "qdrant"))
    first = run(old, BookIndex(client, "tiny"), embedder)
    client.close()
    assert first.chunks == 4

    pages = 500  # eight embedding batches of 64: seconds of embedding left after the first one
    big = write_book(tmp_path / "big", {
        f"{i:03d}-page.md": f"# Page {i}\n\n## Part {i}\n\n{prose(f'Page{i}')}\n" for i in range(pages)
    })
    base = [*lectern_command(), "ingest", str(big), "--book", "tiny", "--data-dir", str(data)]
    process = subprocess.Popen(base, cwd=tmp_path, env=cli_env(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    watcher = ProgressWatcher(process)
    try:
        assert watcher.embedding.wait(timeout=180), f"no embedding progress seen: {watcher.seen[-500:]!r}"
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    assert watcher.progress is not None and watcher.progress[1] == pages

    client = QdrantClient(path=str(data / "qdrant"))
    try:
        index = BookIndex(client, "tiny")
        assert index.current_collection() == first.collection
        chunks = index.chunks_with_vectors()[0]
        assert len(chunks) == first.chunks
        assert {c.source_path for c in chunks} == {"01-one.md", "02-two.md"}
        hits = ranked(index, embedder, prose("Two1"), 1)
        assert hits[0].source_path == "02-two.md"
    finally:
        client.close()

    result = subprocess.run([*base, "--json"], check=False, cwd=tmp_path, env=cli_env(), capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    report = IngestReport.model_validate_json(result.stdout)  # --json prints the report
    assert (report.pages, report.chunks, report.embedded, report.removed) == (pages, pages, pages, 4)
    assert report.collection and report.collection != first.collection
    client = QdrantClient(path=str(data / "qdrant"))
    try:
        index = BookIndex(client, "tiny")
        assert index.current_collection() == report.collection
        assert collection_names(client) == [report.collection]
        assert len(index.chunks_with_vectors()[0]) == pages
    finally:
        client.close()


# --- the command line -------------------------------------------------------------------------


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["ingest", *args])
    return result.exit_code, result.stdout, result.stderr


def error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


def test_missing_folder_is_a_one_line_error(tmp_path: Path) -> None:
    code, _, stderr = invoke(str(tmp_path / "nope"), "--book", "x", "--data-dir", str(tmp_path / "data"))
    assert code == 1
    assert error_line(stderr) == f"error: {tmp_path / 'nope'}: no such folder"
    assert not (tmp_path / "data").exists()


def test_folder_without_markdown_is_a_one_line_error(tmp_path: Path) -> None:
    empty = write_book(tmp_path / "empty", {"notes.txt": "not markdown", "_drafts/x.md": "# hidden"})
    code, _, stderr = invoke(str(empty), "--book", "x", "--data-dir", str(tmp_path / "data"))
    assert code == 1
    assert error_line(stderr) == f"error: {empty}: no markdown (.md/.mdx) files found"


def test_a_book_with_nothing_to_index_is_a_one_line_error_and_keeps_the_index(tmp_path: Path, book: Path) -> None:
    data = tmp_path / "data"
    assert invoke(str(book), "--book", "x", "--data-dir", str(data))[0] == 0
    drafts = write_book(tmp_path / "drafts", {"01-a.md": "---\ndraft: true\n---\n# A\n\nText.\n", "02-b.md": ""})
    code, _, stderr = invoke(str(drafts), "--book", "x", "--data-dir", str(data))
    assert code == 1
    assert error_line(stderr) == ("error: no page has any text to index (2 files skipped: draft, unlisted "
                                  "or empty); the served index is unchanged")
    client = QdrantClient(path=str(data / "qdrant"))
    assert BookIndex(client, "x").pages()  # the book's pages are still served
    client.close()


def test_broken_front_matter_names_the_file_and_line(tmp_path: Path) -> None:
    broken = write_book(tmp_path / "broken", {
        "01-ok.md": page("Ok"),
        "02-part/03-bad.md": "---\ntitle: fine\ntags: [oops\nnext: 1\n---\n# Bad\n",
    })
    code, _, stderr = invoke(str(broken), "--book", "x", "--data-dir", str(tmp_path / "data"))
    assert code == 1
    assert re.fullmatch(r"error: 02-part/03-bad\.md:4: front matter: .+", error_line(stderr))
    assert not (tmp_path / "data").exists()


def test_invalid_book_id_is_refused(tmp_path: Path, book: Path) -> None:
    code, _, stderr = invoke(str(book), "--book", "Bad Id!", "--data-dir", str(tmp_path / "data"))
    assert code == 1 and error_line(stderr).startswith("error: invalid book id 'Bad Id!'")
    assert not (tmp_path / "data").exists()


def test_dry_run_json_prints_the_plan_and_creates_nothing(tmp_path: Path, book: Path) -> None:
    data = tmp_path / "data"
    code, stdout, _ = invoke(str(book), "--book", "x", "--data-dir", str(data), "--dry-run", "--json")
    assert code == 0
    plan = json.loads(stdout)
    assert isinstance(plan, list) and len(plan) == 6
    assert {"source_path", "section", "anchor", "url", "text", "tokens"} <= set(plan[0])
    assert plan[0]["url"] == "/docs/a/one#one-part-0" and plan[0]["module"] == "Part A"
    assert not data.exists()


def test_plan_refuses_a_file_instead_of_a_folder(tmp_path: Path) -> None:
    file = tmp_path / "one.md"
    file.write_text(page("One"))
    with pytest.raises(IngestError, match="not a folder"):
        plan_book(file, "x")


def test_plan_skips_drafts_hidden_and_underscore_paths(tmp_path: Path) -> None:
    root = write_book(tmp_path / "docs", {
        "01-one.md": page("One"),
        "02-draft.md": "---\ndraft: true\n---\n" + page("Draft").split("---\n", 2)[2],
        "_partials/p.md": page("Partial"),
        ".hidden/h.md": page("Hidden"),
        "03-empty.md": "# Only a title\n",
    })
    plan = plan_book(root, "x")
    assert [p.source_path for p in plan.pages] == ["01-one.md"]
    assert sorted(plan.skipped_files) == ["02-draft.md", "03-empty.md"]


def test_front_matter_id_and_slug_shape_urls_and_ids(tmp_path: Path) -> None:
    root = write_book(tmp_path / "docs", {
        "01-guide/01-start.md": "---\nid: quick\n---\n" + page("Start").split("---\n", 2)[2],
        "01-guide/02-more.md": "---\nslug: /elsewhere\n---\n" + page("More").split("---\n", 2)[2],
        "01-guide/README.md": "# The Guide\n\n" + prose("Guide intro", 60) + "\n",
    })
    plan = plan_book(root, "x", base_url="https://b.example")
    urls = {p.source_path: (p.lesson_id, p.url, p.module) for p in plan.pages}
    assert urls["01-guide/01-start.md"] == ("guide/quick", "https://b.example/docs/guide/quick", "The Guide")
    assert urls["01-guide/02-more.md"][1] == "https://b.example/docs/elsewhere"
    assert urls["01-guide/README.md"][1] == "https://b.example/docs/guide/"


# --- the whole real book ----------------------------------------------------------------------


@pytest.mark.slow
def test_real_book_ingests_with_full_metadata(tmp_path: Path, embedder: LocalEmbedder) -> None:
    client = QdrantClient(path=str(tmp_path / "qdrant"))
    try:
        index = BookIndex(client, "physical-ai")
        report = ingest(plan_book(SHARED_BOOK, "physical-ai"), index, embedder)
        assert report.pages > 40 and report.dropped_questions == 0 and not report.skipped_files
        chunks, vectors, *_ = index.chunks_with_vectors()
        assert len(chunks) == report.chunks > 500 and all(len(v) == 384 for v in vectors)

        for chunk in chunks:
            where = f"{chunk.source_path}#{chunk.position}"
            assert chunk.module and chunk.lesson and chunk.source_path, where
            assert chunk.url.startswith("/docs/"), where
            if chunk.section:  # a section, or the top of the page
                assert chunk.anchor and chunk.url.endswith(f"#{chunk.anchor}"), where
            else:
                assert not chunk.anchor and "#" not in chunk.url, where
            fences = sum(1 for line in chunk.text.splitlines() if line.lstrip().startswith("```"))
            assert fences % 2 == 0, f"split code fence in {where}"

        by_source: dict[str, list[str]] = {}
        for chunk in chunks:
            by_source.setdefault(chunk.source_path, []).append(chunk.text)
        tables = 0
        for source in SHARED_BOOK.rglob("*.md"):
            rel = source.relative_to(SHARED_BOOK).as_posix()
            lines = source.read_text(encoding="utf-8").splitlines()
            for header, rule in itertools.pairwise(lines):
                if header.lstrip().startswith("|") and re.match(r"^\s*\|?\s*:?-{3,}", rule):
                    tables += 1
                    assert any(f"{header}\n{rule}" in text for text in by_source[rel]), (
                        f"table header and separator apart in {rel}: {header[:40]}"
                    )
        assert tables > 10

        quiz_pages = {c.source_path for c in chunks if c.kind == "quiz"}
        assert len(quiz_pages) == 4
        for source_path in quiz_pages:
            quiz = sorted((c for c in chunks if c.source_path == source_path), key=lambda c: c.position)
            assert_every_question_answered(quiz)
        first_quiz = "\n".join(c.text for c in chunks if c.kind == "quiz" and "01-ros2" in c.source_path)
        assert {int(n) for n in re.findall(r"\*\*Question (\d+)", first_quiz)} == set(range(1, 16))

        question = "What is a ROS 2 node?"
        hits = ranked(index, embedder, question, 5)
        assert any("01-ros2-nervous-system" in h.source_path for h in hits)
    finally:
        client.close()


def assert_every_question_answered(quiz: list[Chunk]) -> None:
    """Each `**Question N` is followed by an answer before the next question, or has an entry
    under an answer-key section of the same page."""
    in_key = [c for c in quiz if c.section.lower().startswith("answer")]
    key_text = "\n".join(c.text for c in in_key)
    asked = "\n\n".join(c.text[c.overlap_chars :] for c in quiz if c not in in_key)
    for part in re.split(r"(?m)^(?=\*\*Question \d+)", asked):
        number = re.match(r"\*\*Question (\d+)", part)
        if number is None:
            continue
        inline = re.search(r"answer", part[number.end() :], re.IGNORECASE)
        keyed = re.search(rf"\bQuestion {number.group(1)}\b", key_text)
        assert inline or keyed, f"{quiz[0].source_path}: question {number.group(1)} has no answer"


KNEADING = (
    "Knead the dough on a lightly floured board for ten minutes, folding it over itself and pushing "
    "it away with the heel of your hand. The gluten strands grow longer and stronger as you work, "
    "and the dough turns from shaggy to smooth and elastic. Press a finger into it: if the dent "
    "springs back slowly, it is ready to rise. Shape it into a ball, set it seam side down in an "
    "oiled bowl and cover it with a damp towel. Leave it somewhere warm until it has doubled in "
    "size, about an hour in summer and longer in winter. Knock it back, fold it into a loaf and let "
    "it prove again in the tin. Bake it in a hot oven until the crust is deep brown and the loaf "
    "sounds hollow when tapped underneath. Let it cool on a wire rack before slicing, or the crumb "
    "will be gummy. Rye and wholemeal flours absorb more water than white flour, so add a spoonful "
    "more if the dough feels stiff, and expect a denser loaf that keeps longer. A sourdough starter "
    "needs feeding with equal weights of flour and water every day; keep it in a jar with a loose lid "
    "and discard half before each feed so that it stays lively and does not grow too sour. "
)
SAFETY = (
    "Before you light the oven, make sure the fire extinguisher hangs on its hook beside the back "
    "door, and check once a month that the needle on its pressure gauge sits in the green band."
)

BREAD = f"---\ntitle: Bread\n---\n# Bread\n\n## Kneading\n\n{KNEADING}{SAFETY}\n"  # one passage, read in windows


def pasta(boiling: str) -> str:
    """A page of one short passage beside the bread page."""
    return f"---\ntitle: Pasta\n---\n# Pasta\n\n## Boiling\n\n{boiling}\n"


def kitchen(folder: Path, boiling: str = "Salt the water well.") -> Path:
    """The long bread page and a pasta page that says `boiling`, written as a book."""
    return write_book(folder, {"01-kitchen/01-bread.md": BREAD, "01-kitchen/02-pasta.md": pasta(boiling)})


def word_pieces(text: str) -> int:
    """How many word pieces the model's tokenizer makes of a text, [CLS] and [SEP] included."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(TOKENIZER))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return len(tokenizer.encode(text).ids)


def test_a_long_passage_is_read_in_windows_the_model_reads_whole() -> None:
    header, text = "kitchen › Bread › Kneading", KNEADING + SAFETY
    windows = read_whole(header, text)
    assert windows[0][:2] == (f"{header}\n\n{text}", MAX_TOKENS)  # as written: what the model reads of it
    assert word_pieces(windows[0].text) > MAX_TOKENS and len(windows) > 1
    assert word_pieces(f"{header}\n\n{text[: windows[0].end]}") == MAX_TOKENS  # the span it reads
    assert all(word_pieces(window.text) == window.word_pieces <= MAX_TOKENS for window in windows[1:])
    further = [window.text.removeprefix(f"{header}\n\n") for window in windows[1:]]
    assert further == [text[window.start : window.end] for window in windows[1:]]
    assert all(f". {window[:40]}" in text for window in further)  # each starts a sentence
    assert SAFETY in further[-1] and windows[-1].end == len(text)  # the end is read whole
    short = f"{header}\n\n{SAFETY}"
    assert read_whole(header, SAFETY) == [(short, word_pieces(short), 0, len(SAFETY))]


def test_the_end_of_a_long_passage_is_found_by_dense_search(
    tmp_path: Path, index: BookIndex, embedder: LocalEmbedder
) -> None:
    """The model reads the first 256 word pieces of a text: a question about the end of a
    longer passage found it only by the words they share (read by its start alone, the bread
    page lost to the pasta page here)."""
    book = write_book(tmp_path / "docs", {
        "01-kitchen/01-bread.md": BREAD,
        "01-kitchen/02-pasta.md": pasta(
            "Salt the water generously and bring it to a rolling boil before the pasta goes in."),
        "01-kitchen/03-knives.md": "---\ntitle: Knives\n---\n# Knives\n\n## Sharpening\n\n"
        "Hold the blade at twenty degrees to the stone and draw it towards you.\n",
    })
    report = run(book, index, embedder)
    assert report.chunks == 3
    hits = ranked(index, embedder, "where is the thing for putting out flames kept?", 3, mode="dense")
    assert hits[0].source_path == "01-kitchen/01-bread.md"


def test_a_quote_from_a_long_passage_is_as_near_as_the_part_the_model_read_it_in(
    tmp_path: Path, index: BookIndex, embedder: LocalEmbedder
) -> None:
    """The passage's vector is the mean of its windows: a sentence about fire extinguishers at
    the end of a page on kneading is nearer a question about them than the page as a whole,
    and the kneading sentences farther."""
    book = kitchen(tmp_path / "docs",
                   "Salt the water generously and bring it to a rolling boil before the pasta goes in.")
    run(book, index, embedder)
    evidence = Retriever(index, embedder).search("where does the fire extinguisher hang?").evidence
    bread = next(chunk_id for chunk_id in evidence.similarity if "extinguisher" in chunk_text(index, chunk_id))
    windows = [window for window in evidence.windows if window.chunk_id == bread]
    safety = next(w for w in windows if "extinguisher" in w.text)
    assert safety.semantic > evidence.similarity[bread]
    assert all(w.semantic < safety.semantic for w in windows if "extinguisher" not in w.text)


def test_a_book_of_one_long_passage_is_read_in_parts_without_a_book_to_compare_with(
    tmp_path: Path, index: BookIndex, embedder: LocalEmbedder
) -> None:
    book = write_book(tmp_path / "docs", {
        "01-kitchen/01-bread.md": BREAD,
    })
    assert run(book, index, embedder).chunks == 1
    evidence = Retriever(index, embedder).search("where does the fire extinguisher hang?").evidence
    assert evidence.windows and all(0 < w.semantic <= 1 for w in evidence.windows)
    assert math.isfinite(evidence.support)


def test_a_reused_long_passage_keeps_its_windows(tmp_path: Path, index: BookIndex, embedder: LocalEmbedder) -> None:
    book = kitchen(tmp_path / "docs")
    run(book, index, embedder)
    kept = {point.content_hash: point.windows for point in index.stored_points().values()}
    (book / "01-kitchen/02-pasta.md").write_text(pasta("Salt it."))
    again = run(book, index, embedder)
    assert again.embedded == 1 and again.reused == 1
    windows = [point.windows for point in index.stored_points().values() if point.windows is not None]
    assert len(windows) == 1 and len(windows[0].spans) == len(windows[0].vectors) > 1
    before = next(w for w in kept.values() if w is not None)
    assert windows[0].spans == before.spans and np.array_equal(windows[0].vectors, before.vectors)


def test_a_long_passage_stored_without_its_parts_is_embedded_anew(
    tmp_path: Path, index: BookIndex, embedder: LocalEmbedder
) -> None:
    book = kitchen(tmp_path / "docs")
    run(book, index, embedder)
    long_id = next(chunk_id for chunk_id, point in index.stored_points().items() if point.windows is not None)
    index.client.delete_payload(index.current_collection(), keys=["parts"], points=[long_id])
    assert index.stored_points()[long_id].windows is None
    (book / "01-kitchen/02-pasta.md").write_text(pasta("Salt it."))
    again = run(book, index, embedder)
    assert again.embedded == 2 and again.reused == 0
    assert index.stored_points()[long_id].windows is not None


def chunk_text(index: BookIndex, chunk_id: str) -> str:
    return next(chunk.text for chunk in index.chunks_with_vectors()[0] if chunk.id == chunk_id)


def test_a_passage_read_in_windows_cut_another_way_is_embedded_anew_and_no_other(
    tmp_path: Path, index: BookIndex, embedder: LocalEmbedder
) -> None:
    book = kitchen(tmp_path / "docs")
    first = run(book, index, embedder)
    before = vectors_by_id(index)
    index.add_metadata({"windows": "cut-another-way"})
    again = run(book, index, embedder)
    assert not again.unchanged and again.embedded == 1 and again.reused == first.chunks - 1 == 1
    assert vectors_by_id(index) == before  # the same windows, the same vectors
    assert run(book, index, embedder).unchanged


def test_a_window_without_a_sentence_end_starts_at_a_word() -> None:
    header = "kitchen › Bread"
    text = " ".join(f"internationalisation{i} unbelievably" for i in range(120))  # no sentence ends
    windows = read_whole(header, text)
    assert len(windows) > 2
    for window, tokens, start, _ in windows[1:]:
        body = window.removeprefix(f"{header}\n\n")
        assert text.startswith(body, start) and text[start - 1] == " "  # a whole word first
        assert word_pieces(window) == tokens <= MAX_TOKENS


def test_an_embedder_that_loses_a_vector_fails_the_ingest_and_keeps_the_index(
    tmp_path: Path, index: BookIndex, book: Path
) -> None:
    class Losing(HashingEmbedder):
        def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
            return super().embed_documents(texts)[:-1]

    with pytest.raises(EmbeddingError, match="vectors for"):
        run(book, index, Losing())
    assert index.current_collection() is None
