"""The local embedders compared in one run: ingest speed and retrieval recall.

    python benchmarks/embedder_bench.py BOOK_DIR QUESTIONS.jsonl [QUESTIONS.jsonl ...]

Ingests the book twice into a scratch data folder, once with the PyTorch build of the packaged
all-MiniLM-L6-v2 (the reference) and once with the ONNX int8 build (the default), each embedder
loaded beforehand so the figures are the ingest itself; then, for every question with gold
files, whether a gold file is among the first 1, 3 and 6 passages hybrid retrieval returns.
"""

import json
import sys
import tempfile
import time
from pathlib import Path

from qdrant_client import QdrantClient

from backend.evaluation import load_questions
from backend.retrieval.embeddings import Embedder, LocalEmbedder, OnnxEmbedder
from backend.retrieval.index import BookIndex
from backend.retrieval.search import Retriever
from ingest_scripts.pipeline import ingest, plan_book

DEPTHS = (1, 3, 6)


def measure(book_dir: Path, questions: list, embedder: Embedder, client: QdrantClient, book: str) -> dict:
    embedder.embed_query("load the model first")
    plan = plan_book(book_dir, book)
    started = time.perf_counter()
    ingest(plan, BookIndex(client, book), embedder)
    seconds = time.perf_counter() - started
    retriever = Retriever(BookIndex(client, book), embedder)
    found = {depth: 0 for depth in DEPTHS}
    asked = [q for q in questions if q.gold]
    for question in asked:
        gold = {g.file for g in question.gold}
        files = [hit.chunk.source_path for hit in retriever.search(question.question, max(DEPTHS)).hits]
        for depth in DEPTHS:
            found[depth] += any(f in gold for f in files[:depth])
    return {
        "embedder": embedder.name, "passages": len(plan.chunks), "ingest_s": round(seconds, 1),
        "passages_per_s": round(len(plan.chunks) / seconds, 1),
        **{f"recall@{depth}": round(found[depth] / len(asked), 3) for depth in DEPTHS},
        "questions": len(asked),
    }


def main(book_dir: str, *question_files: str) -> None:
    questions = [q for path in question_files for q in load_questions(Path(path))]
    with tempfile.TemporaryDirectory() as folder:
        client = QdrantClient(path=folder)
        rows = [
            measure(Path(book_dir), questions, LocalEmbedder(), client, "torch"),
            measure(Path(book_dir), questions, OnnxEmbedder(), client, "onnx"),
        ]
        client.close()
    for row in rows:
        print(json.dumps(row))
    print(f"ingest speed-up: {rows[0]['ingest_s'] / rows[1]['ingest_s']:.2f}x")


if __name__ == "__main__":
    main(*sys.argv[1:])
