"""How Lectern grows with the book: ingest rate, load time, memory and answer latency per size.

    python benchmarks/scale.py 1000 10000 [50000 ...]

A book of N passages is made from the two shared corpora's real passages, copied as often as
needed; each copy is an "edition" whose passages name it in their section and first sentence,
so no two passages are the same text. For each size, in fresh processes (so memory is that
size's alone): one ingests with the default local embedder; then another, as `lectern serve`
does at start, loads the index and answers a warm-up question, then answers the committed
questions (offline model) and runs their searches. Prints one JSON line per size and a
markdown table, and draws them in docs/scale.png.
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


def ingest_book(size: int, data: Path) -> dict:
    from backend.config import Settings
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
    return {
        "passages": len(plan.chunks), "ingest_s": round(ingest_s, 1),
        "ingest_passages_per_s": round(len(plan.chunks) / ingest_s, 1), "ingest_rss_mb": _peak_rss_mb(),
    }


def serve_book(data: Path) -> dict:
    import asyncio

    from backend.config import Settings
    from backend.engine import Library
    from backend.evaluation import load_questions
    from backend.metrics import percentile
    from backend.question import Question

    started = time.perf_counter()
    library = Library(Settings(LECTERN_DATA_DIR=data, LECTERN_BOOK="scale"))
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
        "ready_s": round(ready_s, 1), "rss_mb": _peak_rss_mb(),
        "answer_p50_ms": round(statistics.median(answers), 1), "answer_p95_ms": round(percentile(answers, 0.95), 1),
        "search_p95_ms": round(percentile(searches, 0.95), 1), "questions": len(questions),
    }


def _peak_rss_mb() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def _step(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, *args], check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(sizes: list[int]) -> None:
    rows = []
    for size in sizes:
        with tempfile.TemporaryDirectory() as data:
            rows.append(_step("--ingest", str(size), data) | _step("--serve", data))
            print(json.dumps(rows[-1]), flush=True)
    print("\n| passages | ingest | passages/s | ingest peak RSS | ready | server RSS | answer p50 / p95 | search p95 |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['passages']:,} | {r['ingest_s']} s | {r['ingest_passages_per_s']} | {r['ingest_rss_mb']:,} MB | "
              f"{r['ready_s']} s | {r['rss_mb']:,} MB | {r['answer_p50_ms']} / {r['answer_p95_ms']} ms | "
              f"{r['search_p95_ms']} ms |")
    plot(rows, ROOT / "docs" / "scale.png")


def plot(rows: list[dict], target: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [r["passages"] for r in rows]
    figure, (latency, start) = plt.subplots(1, 2, figsize=(9, 3.4))
    for key, label in (("answer_p50_ms", "answer p50"), ("answer_p95_ms", "answer p95"), ("search_p95_ms", "search p95")):
        latency.plot(sizes, [r[key] for r in rows], marker="o", label=label)
    latency.axhline(200, color="grey", linestyle=":", label="goal: answer p95 200 ms")
    latency.set(xscale="log", xlabel="passages", ylabel="ms", title="Latency (offline model)")
    latency.legend(fontsize=8)
    start.plot(sizes, [r["rss_mb"] / 1024 for r in rows], marker="o", color="tab:purple", label="server RSS (GB)")
    start.axhline(2, color="tab:purple", linestyle=":", label="goal: 2 GB")
    start.set(xscale="log", xlabel="passages", ylabel="GB", title="Memory and start-up")
    ready = start.twinx()
    ready.plot(sizes, [r["ready_s"] for r in rows], marker="s", color="tab:green", label="ready (s)")
    ready.set_ylabel("s")
    start.legend(loc="upper left", fontsize=8)
    ready.legend(loc="lower right", fontsize=8)
    figure.tight_layout()
    figure.savefig(target, dpi=110)


if __name__ == "__main__":
    if sys.argv[1] == "--ingest":
        print(json.dumps(ingest_book(int(sys.argv[2]), Path(sys.argv[3]))))
    elif sys.argv[1] == "--serve":
        print(json.dumps(serve_book(Path(sys.argv[2]))))
    else:
        main([int(size) for size in sys.argv[1:]])
