"""How Lectern grows with the book: ingest rate, load time, memory and answer latency per size.

    python benchmarks/scale.py 1000 10000 [50000 ...]

A book of N passages is made from the two shared corpora's real passages, copied as often as
needed; each copy is an "edition" whose passages name it in their section and first sentence,
so no two passages are the same text. For each size, in a fresh process (so memory is that
size's alone): ingest with the default local embedder, then, as `lectern serve` does at start,
load the index and answer a warm-up question; then answer the committed questions (offline
model) and run their searches. Prints one JSON line per size and a markdown table.
"""

import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = [ROOT.parent / "shared" / "corpora" / name for name in ("physical-ai-book", "redux-docs")]
QUESTIONS = [ROOT / "eval" / "questions" / name for name in ("physical-ai-a.jsonl", "redux-a.jsonl")]


def book_of(size: int):  # -> BookPlan (imported lazily: the parent process stays light)
    from ingest_scripts.pipeline import BookPlan, plan_book

    plans = [plan_book(corpus, "scale") for corpus in CORPORA]
    pages = {p.source_path: p for plan in plans for p in plan.pages}
    originals = [chunk for plan in plans for chunk in plan.chunks]
    plan = BookPlan([], [], 0, [])
    edition = 0
    while len(plan.chunks) < size:
        edition += 1
        for chunk in originals[: size - len(plan.chunks)]:
            source = f"edition-{edition}/{chunk.source_path}"
            if chunk.position == 0:
                page = pages[chunk.source_path]
                plan.pages.append(page.model_copy(update={"source_path": source, "title": f"{page.title} ({edition})"}))
            plan.chunks.append(chunk.model_copy(update={
                "source_path": source, "section": f"{chunk.section} · edition {edition}",
                "text": f"Edition {edition}. {chunk.text}",
            }))
    return plan


def measure(size: int, data: Path) -> dict:
    import asyncio

    from backend.config import Settings
    from backend.engine import Library
    from backend.evaluation import load_questions
    from backend.question import Question
    from backend.retrieval.embeddings import make_embedder
    from backend.retrieval.index import BookIndex, open_client
    from ingest_scripts.pipeline import ingest

    settings = Settings(LECTERN_DATA_DIR=data, LECTERN_BOOK="scale")
    plan = book_of(size)
    embedder = make_embedder(settings)
    embedder.embed_query("load the model first")
    client = open_client(settings)
    started = time.perf_counter()
    ingest(plan, BookIndex(client, "scale"), embedder)
    ingest_s = time.perf_counter() - started
    client.close()

    started = time.perf_counter()
    library = Library(settings)
    engine = asyncio.run(library.loaded_engine())
    asyncio.run(engine.answer(Question(text="warm up")))
    ready_s = time.perf_counter() - started
    questions = [q for path in QUESTIONS for q in load_questions(path) if not q.history and not q.selected_text]
    answers, searches = [], []
    for question in questions:
        started = time.perf_counter()
        asyncio.run(engine.answer(Question(text=question.question)))
        answers.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        engine.retriever.search(question.question, 8)
        searches.append((time.perf_counter() - started) * 1000)
    library.close()
    return {
        "passages": len(plan.chunks), "ingest_s": round(ingest_s, 1),
        "ingest_passages_per_s": round(len(plan.chunks) / ingest_s, 1),
        "ready_s": round(ready_s, 1), "rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "answer_p50_ms": round(statistics.median(answers), 1), "answer_p95_ms": round(_p95(answers), 1),
        "search_p95_ms": round(_p95(searches), 1), "questions": len(questions),
    }


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def main(sizes: list[int]) -> None:
    rows = []
    for size in sizes:
        with tempfile.TemporaryDirectory() as data:
            out = subprocess.run([sys.executable, __file__, "--one", str(size), data],
                                 check=True, capture_output=True, text=True, cwd=ROOT)
            rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(json.dumps(rows[-1]), flush=True)
    print("\n| passages | ingest | passages/s | ready | RSS | answer p50 / p95 | search p95 |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['passages']:,} | {r['ingest_s']} s | {r['ingest_passages_per_s']} | {r['ready_s']} s | "
              f"{r['rss_mb']} MB | {r['answer_p50_ms']} / {r['answer_p95_ms']} ms | {r['search_p95_ms']} ms |")


if __name__ == "__main__":
    if sys.argv[1] == "--one":
        print(json.dumps(measure(int(sys.argv[2]), Path(sys.argv[3]))))
    else:
        main([int(size) for size in sys.argv[1:]])
