"""The local model's two builds: ONNX int8 (the default, shipped) gives the PyTorch build's vectors
within a rounding of its weights, the shipped file is what exporting the packaged weights makes,
and a book indexed with either is asked with the same build it was indexed with."""

from pathlib import Path

import numpy as np

from backend.config import Settings
from backend.engine import Library
from backend.retrieval.embeddings import (
    LocalEmbedder,
    OnnxEmbedder,
    make_embedder,
    packaged_weights,
)
from backend.retrieval.model_export import export_int8
from ingest_scripts.watch import BookWatcher
from tests.support.books import ingest_into, write_book

TEXTS = [
    "A servo motor holds its position with a feedback loop.",
    "Kalman filters fuse an IMU's fast but drifting readings with slower absolute ones. " * 12,
    "x",
]


def test_the_onnx_build_gives_the_pytorch_builds_vectors(tmp_path: Path) -> None:
    onnx = OnnxEmbedder()
    assert make_embedder(Settings()).name == onnx.name
    fast = np.array(onnx.embed_documents(TEXTS))
    reference = np.array(LocalEmbedder().embed_documents(TEXTS))
    assert fast.shape == (3, 384) and np.allclose(np.linalg.norm(fast, axis=1), 1, atol=1e-5)
    # Measured: 0.985 at the least over the physical-ai book's 815 passages, 0.978 for "x".
    assert (fast * reference).sum(axis=1).min() > 0.97
    # One text a run: a text's vector does not depend on the texts embedded with it.
    assert onnx.embed_query(TEXTS[0]) == onnx.embed_documents(TEXTS)[0]


def test_the_shipped_model_is_the_packaged_weights_exported(tmp_path: Path) -> None:
    shipped = np.array(OnnxEmbedder().embed_documents(TEXTS))
    export_int8(packaged_weights(), tmp_path / "fresh.onnx")
    fresh = np.array(OnnxEmbedder(tmp_path / "fresh.onnx").embed_documents(TEXTS))
    assert np.allclose(shipped, fresh, atol=1e-5)


def test_a_book_is_asked_with_the_build_it_was_indexed_with(tmp_path: Path) -> None:
    docs = write_book(tmp_path / "docs", {"a.md": "# Servos\n\nA servo motor holds its position with a feedback loop.\n"})
    ingest_into(tmp_path / "data", docs, "old", embedder=LocalEmbedder())
    ingest_into(tmp_path / "data", docs, "new")
    library = Library(Settings(LECTERN_DATA_DIR=tmp_path / "data"))
    try:
        assert library.engine("old").retriever.embedder.name == LocalEmbedder.name
        assert library.engine("new").retriever.embedder.name == OnnxEmbedder.name
        # Re-ingested in the serving process, the old book is rebuilt with the default model
        # and asked with it from then on.
        assert BookWatcher(library, docs, "old").reingest().rebuild_reason
        assert library.engine("old").retriever.embedder.name == OnnxEmbedder.name
    finally:
        library.close()
