"""The plain retriever a developer would assemble from a LangChain tutorial, as a baseline for Lectern.

    python benchmarks/baseline_retriever.py CORPUS_DIR QUESTIONS.jsonl [--json]
    python benchmarks/baseline_retriever.py --sets SETS.tsv [--json]

SETS.tsv has one `questions_path<TAB>corpus_dir` line a set (paths as given, from the current
folder; blank lines and `#` lines are skipped); one row is printed a set, then the mean over sets.

What it measures: how often a hybrid retriever with no knowledge of the book's structure puts a
gold passage first, in its top 3 and in its top 6, on the questions Lectern cites for (kinds
answerable, selection, followup, cross_lesson), plus how long its index takes to build and the
median time a query takes. Reported beside Lectern on every set, it shows what Lectern's own
ingest, retrieval and reranking add over what a tutorial gives for free ("about 50 lines, no
answer, no abstention").

The retriever: every file read as its raw text (markdown, MDX, reST, .txt, a notebook's JSON),
an HTML page as its visible body text (without script, style and nav), a PDF one document a
page; LangChain's RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200); dense
search with the packaged all-MiniLM-L6-v2 exactly as Lectern runs it locally (its ONNX
embedder; unit vectors, so cosine is a dot product); BM25Okapi over lower-cased `\\w+` tokens;
the top 40 of each fused by reciprocal rank fusion (k = 60). No reranking, no answer, no
abstention.

The query is the question; for `selection` the selected text, then the question; for
`followup` the reader's last turn in `history`, then the question: what a plain retriever
without query rewriting can do. A chunk hits when its file is a gold file and, for a gold with
a page, its page is that page (the rule of backend/evaluation.py `hits`).
"""

import argparse
import json
import re
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from backend.retrieval.embeddings import OnnxEmbedder

TEXT_SUFFIXES = {".md", ".mdx", ".rst", ".txt", ".ipynb"}
SCORED_KINDS = ("answerable", "selection", "followup", "cross_lesson")
POOL, RRF_K = 40, 60


@dataclass
class Chunk:
    text: str
    file: str  # relative to the corpus folder
    page: int | None = None  # of a PDF, 1-based


def load(corpus: Path) -> list[Chunk]:
    """Each file as LangChain's loaders would give it: (text, file, page) documents."""
    import pypdfium2 as pdfium
    from selectolax.lexbor import LexborHTMLParser

    documents: list[Chunk] = []
    for path in sorted(p for p in corpus.rglob("*") if p.is_file()):
        rel, suffix = path.relative_to(corpus).as_posix(), path.suffix.lower()
        if suffix in TEXT_SUFFIXES:
            documents.append(Chunk(path.read_text(encoding="utf-8", errors="replace"), rel))
        elif suffix in (".html", ".htm"):
            tree = LexborHTMLParser(path.read_bytes())
            tree.strip_tags(["script", "style", "nav"])
            text = tree.body.text(separator="\n", strip=True) if tree.body else ""
            documents.append(Chunk(text, rel))
        elif suffix == ".pdf":
            pdf = pdfium.PdfDocument(str(path))
            for number, page in enumerate(pdf, start=1):
                textpage = page.get_textpage()
                documents.append(Chunk(textpage.get_text_range() if textpage.count_chars() else "", rel, number))
            pdf.close()
    return documents


class BaselineRetriever:
    def __init__(self, corpus: Path):
        from langchain_text_splitters import RecursiveCharacterTextSplitter
        from rank_bm25 import BM25Okapi

        splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)
        self.chunks = [Chunk(text, doc.file, doc.page)
                       for doc in load(corpus) for text in splitter.split_text(doc.text)]
        self.embedder = OnnxEmbedder()  # Lectern's local model, as it runs it
        self.vectors = np.array(self.embedder.embed_documents([c.text for c in self.chunks]))
        self.bm25 = BM25Okapi([tokens(c.text) for c in self.chunks])

    def search(self, query: str, limit: int = 6) -> list[Chunk]:
        dense = self.vectors @ np.array(self.embedder.embed_query(query))
        lexical = self.bm25.get_scores(tokens(query))
        fused: dict[int, float] = {}
        for scores in (dense, lexical):
            for rank, index in enumerate(np.argsort(-scores, kind="stable")[:POOL], start=1):
                fused[int(index)] = fused.get(int(index), 0.0) + 1 / (RRF_K + rank)
        best = sorted(fused, key=lambda index: (-fused[index], index))[:limit]
        return [self.chunks[index] for index in best]


def tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def query_of(question: dict) -> str:
    if question["kind"] == "selection" and question.get("selected_text"):
        return f"{question['selected_text']}\n\n{question['question']}"
    if question["kind"] == "followup":
        users = [turn["content"] for turn in question.get("history", []) if turn["role"] == "user"]
        if users:
            return f"{users[-1]}\n\n{question['question']}"
    return question["question"]


def hits(chunk: Chunk, gold: list[dict]) -> bool:
    return any(chunk.file == g["file"] and (g.get("page") is None or chunk.page == g["page"]) for g in gold)


def evaluate(retriever: BaselineRetriever, questions_path: Path, build_s: float) -> dict:
    questions = [json.loads(line) for line in questions_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    scored = [q for q in questions if q["kind"] in SCORED_KINDS]
    found = {name: 0 for name in ("gold_first", "gold_top3", "gold_top6")}
    latencies = []
    for question in scored:
        start = time.perf_counter()
        ranked = retriever.search(query_of(question), limit=6)
        latencies.append(time.perf_counter() - start)
        for name, depth in (("gold_first", 1), ("gold_top3", 3), ("gold_top6", 6)):
            found[name] += any(hits(chunk, question["gold"]) for chunk in ranked[:depth])
    files = {chunk.file for chunk in retriever.chunks}
    return {
        "questions_path": str(questions_path),
        **{name: count / max(len(scored), 1) for name, count in found.items()},
        "questions": len(scored),
        "chunks": len(retriever.chunks),
        "build_s": build_s,
        "query_ms_p50": 1000 * statistics.median(latencies) if latencies else 0.0,
        "gold_files_without_chunks": sorted({g["file"] for q in scored for g in q["gold"]} - files),
    }


def run(sets: list[tuple[Path, Path]]) -> list[dict]:
    """Each (questions, corpus) pair scored; a corpus shared by several sets is indexed once."""
    built: dict[Path, tuple[BaselineRetriever, float]] = {}
    rows = []
    for questions_path, corpus in sets:
        if corpus not in built:
            start = time.perf_counter()
            retriever = BaselineRetriever(corpus)
            built[corpus] = retriever, time.perf_counter() - start
        retriever, build_s = built[corpus]
        rows.append(evaluate(retriever, questions_path, build_s))
    return rows


COLUMNS = {"gold_first": ".3f", "gold_top3": ".3f", "gold_top6": ".3f", "questions": ".0f", "chunks": ".0f",
           "build_s": ".1f", "query_ms_p50": ".1f"}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", type=Path, help="the folder of the book")
    parser.add_argument("questions", nargs="?", type=Path, help="a JSONL question set")
    parser.add_argument("--sets", type=Path, help="a TSV of questions_path<TAB>corpus_dir lines")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    if args.sets:
        lines = [line.split("\t") for line in args.sets.read_text(encoding="utf-8").splitlines()
                 if line.strip() and not line.startswith("#")]
        sets = [(Path(q.strip()), Path(c.strip())) for q, c in lines]
    elif args.corpus and args.questions:
        sets = [(args.questions, args.corpus)]
    else:
        parser.error("give CORPUS_DIR QUESTIONS.jsonl, or --sets FILE")
    rows = run(sets)
    mean = {"questions_path": "mean", **{c: statistics.fmean(r[c] for r in rows) for c in COLUMNS}}
    if args.json:
        print(json.dumps({"sets": rows, "mean": mean} if len(rows) > 1 else rows[0], indent=2))
        return
    print(f"{'set':<28}" + "".join(f"{c:>13}" for c in COLUMNS))
    for row in rows + ([mean] if len(rows) > 1 else []):
        print(f"{Path(row['questions_path']).stem:<28}" + "".join(f"{row[c]:>13{f}}" for c, f in COLUMNS.items()))
    for row in rows:
        if row["gold_files_without_chunks"]:
            print(f"{row['questions_path']}: gold files with no chunk: {row['gold_files_without_chunks']}",
                  file=sys.stderr)


if __name__ == "__main__":
    main()
