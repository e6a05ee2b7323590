"""Ingest runs against embedded Qdrant: incremental updates, model changes, interruptions, CLI."""

import hashlib
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from qdrant_client import QdrantClient
from typer.testing import CliRunner

from backend.cli import app
from backend.retrieval import lexical
from backend.retrieval.index import BookIndex
from ingest_scripts.pipeline import IngestError, IngestReport, ingest, plan_book
from tests.support.books import SHARED_BOOK, local_embedder, write_book

REPO = Path(__file__).resolve().parents[2]


class HashingEmbedder:
    """A small real provider (bag of hashed words); another `name` = another vector space."""

    def __init__(self, name: str = "test:hashing-64", dimension: int = 64):
        self.name = name
        self._dimension = dimension
        self.embedded = 0

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.embedded += len(texts)
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * self._dimension
        for word in re.findall(r"\w+", text.lower()):
            vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % self._dimension] += 1
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]


def page(title: str, sections: int = 2, words: int = 80) -> str:
    body = "\n\n".join(
        f"## {title} part {s}\n\n" + " ".join(f"{title.lower()}{s}w{i}" for i in range(words)) + "."
        for s in range(sections)
    )
    return f"---\ntitle: {title}\n---\n# {title}\n\n{body}\n"


@pytest.fixture
def index(tmp_path: Path) -> Iterator[BookIndex]:
    client = QdrantClient(path=str(tmp_path / "qdrant"))
    yield BookIndex(client, "tiny")
    client.close()


def run(root: Path, index: BookIndex, embedder: HashingEmbedder) -> IngestReport:
    return ingest(plan_book(root, index.book), index, embedder)


def test_incremental_ingest_embeds_only_what_changed(tmp_path: Path, index: BookIndex) -> None:
    root = write_book(tmp_path / "docs", {
        "01-a/_category_.json": '{"label": "Part A"}',
        "01-a/01-one.md": page("One"),
        "01-a/02-two.md": page("Two"),
        "02-b/01-three.md": page("Three"),
    })
    embedder = HashingEmbedder()
    first = run(root, index, embedder)
    assert (first.pages, first.chunks, first.embedded) == (3, 6, 6)
    assert {c.module for c in index.chunks_with_vectors()[0] if c.source_path.startswith("01-a")} == {"Part A"}

    again = run(root, index, embedder)
    assert again.unchanged and again.embedded == 0 and again.collection == first.collection

    (root / "01-a/02-two.md").write_text(page("Two") + "\n## Two extra\n\nA brand new closing section with words.\n")
    (root / "02-b/01-three.md").unlink()
    (root / "02-b/02-four.md").write_text(page("Four"))
    changed = run(root, index, embedder)
    assert not changed.unchanged
    assert changed.embedded == 3  # Two's new section + Four's two sections
    assert changed.reused == 4 and changed.removed == 2
    sources = {c.source_path for c in index.chunks_with_vectors()[0]}
    assert sources == {"01-a/01-one.md", "01-a/02-two.md", "02-b/02-four.md"}
    names = [c.name for c in index.client.get_collections().collections]
    assert names == [index.current_collection()]  # the old build is gone


def test_a_different_embedding_model_forces_a_clean_rebuild(tmp_path: Path, index: BookIndex) -> None:
    root = write_book(tmp_path / "docs", {"01-one.md": page("One"), "02-two.md": page("Two")})
    run(root, index, HashingEmbedder())
    other = HashingEmbedder(name="test:hashing-32", dimension=32)
    report = run(root, index, other)
    assert report.rebuild_reason and "test:hashing-64" in report.rebuild_reason
    assert report.embedded == report.chunks == 4
    assert index.metadata() == {"embedder": "test:hashing-32", "dimension": 32, "book": "tiny"}
    hits = index.query(other.embed_query("two1w3"), lexical.query_vector("two1w3"), 3)
    assert hits[0].chunk.source_path == "02-two.md"


def test_leftovers_of_an_interrupted_publish_are_removed(tmp_path: Path, index: BookIndex) -> None:
    root = write_book(tmp_path / "docs", {"01-one.md": page("One")})
    first = run(root, index, HashingEmbedder())
    index.client.create_collection(f"{index.alias}-20990101000000-dead00", vectors_config={})
    assert index.current_collection() == first.collection
    (root / "01-one.md").write_text(page("One", sections=3))
    second = run(root, index, HashingEmbedder())
    assert [c.name for c in index.client.get_collections().collections] == [second.collection]


def test_killed_ingest_leaves_the_served_index_whole(tmp_path: Path) -> None:
    root = write_book(tmp_path / "docs", {"01-one.md": page("One")})
    data = tmp_path / "data"
    cli = [sys.executable, "-m", "backend", "ingest", "--book", "tiny", "--data-dir", str(data)]
    subprocess.run([*cli, str(root)], check=True, capture_output=True, cwd=REPO)

    big = write_book(tmp_path / "big", {f"{i:03d}-p.md": page(f"P{i}", sections=4) for i in range(150)})
    process = subprocess.Popen([*cli, str(big)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    time.sleep(12)  # the model is loaded and embedding is under way (600 chunks take longer)
    assert process.poll() is None, "the ingest finished before it could be interrupted"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()

    client = QdrantClient(path=str(data / "qdrant"))
    index = BookIndex(client, "tiny")
    chunks, _ = index.chunks_with_vectors()
    assert {c.source_path for c in chunks} == {"01-one.md"}
    client.close()
    result = subprocess.run([*cli, "--json", str(big)], check=True, capture_output=True, text=True, cwd=REPO)
    assert json.loads(result.stdout)["pages"] == 150


def test_bad_input_gives_one_line_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    data = ["--book", "x", "--data-dir", str(tmp_path / "data")]
    missing = runner.invoke(app, ["ingest", str(tmp_path / "nope"), *data])
    assert missing.exit_code == 1 and "no such folder" in missing.output

    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("not markdown")
    result = runner.invoke(app, ["ingest", str(empty), *data])
    assert result.exit_code == 1 and "no markdown" in result.output

    broken = write_book(tmp_path / "broken", {"01-ok.md": page("Ok"), "02-bad.md": "---\ntitle: [oops\n---\n# Bad\n"})
    result = runner.invoke(app, ["ingest", str(broken), *data])
    assert result.exit_code == 1
    assert re.search(r"error: 02-bad\.md:\d+: front matter", " ".join(result.output.split()))

    result = runner.invoke(app, ["ingest", str(broken), "--book", "Bad Id!", "--data-dir", str(tmp_path / "d")])
    assert result.exit_code == 1 and "invalid book id" in result.output
    assert not (tmp_path / "data").exists() and not (tmp_path / "d").exists()  # nothing written


def test_dry_run_prints_the_plan_and_writes_nothing(tmp_path: Path) -> None:
    root = write_book(tmp_path / "docs", {"01-one.md": page("One"), "02-two.md": page("Two")})
    data = tmp_path / "data"
    result = CliRunner().invoke(app, ["ingest", str(root), "--book", "x", "--data-dir", str(data), "--dry-run", "--json"])
    assert result.exit_code == 0
    plan = json.loads(result.stdout)
    assert len(plan) == 4 and {"section", "url", "tokens", "anchor"} <= set(plan[0])
    assert not data.exists()


def test_plan_refuses_a_file_instead_of_a_folder(tmp_path: Path) -> None:
    file = tmp_path / "one.md"
    file.write_text(page("One"))
    with pytest.raises(IngestError, match="not a folder"):
        plan_book(file, "x")


@pytest.mark.slow
def test_real_book_ingests_with_full_metadata(real_book_template: Path) -> None:
    client = QdrantClient(path=str(real_book_template / "qdrant"))
    try:
        index = BookIndex(client, "physical-ai")
        chunks, vectors = index.chunks_with_vectors()
        assert len(chunks) > 500 and all(len(v) == 384 for v in vectors)
        for chunk in chunks:
            assert chunk.lesson and chunk.source_path and chunk.url.startswith("/demo/docs/")
            assert chunk.module or "/" not in chunk.source_path
            assert chunk.text.count("```") % 2 == 0, f"split code fence in {chunk.source_path}"
        texts = "\n\n".join(c.text for c in chunks)
        tables = 0
        for source in SHARED_BOOK.rglob("*.md"):
            lines = source.read_text(encoding="utf-8").splitlines()
            for header, rule in zip(lines, lines[1:], strict=False):
                if header.startswith("|") and re.match(r"^\|\s*:?-{3,}", rule):
                    tables += 1
                    assert f"{header}\n{rule}" in texts, f"table split in {source.name}: {header[:40]}"
        assert tables > 10
        quiz_text = "\n".join(c.text for c in chunks if c.kind == "quiz")
        assert "Question 1" in quiz_text
        summaries = [c for c in chunks if c.kind == "summary"]
        assert summaries and all(".summary." in c.source_path for c in summaries)
        embedder = local_embedder()
        question = "What is a ROS 2 node?"
        hits = index.query(embedder.embed_query(question), lexical.query_vector(question), 5)
        assert any("01-ros2-nervous-system" in h.chunk.source_path for h in hits)
    finally:
        client.close()
    assert SHARED_BOOK.exists()
