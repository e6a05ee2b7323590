"""How pure the console's content gaps are, against labelled reader questions.

    python eval/gap_purity.py [--questions eval/gaps/questions.jsonl] [--data-dir DIR] [--percentile P]

Each book of the set (eval/gaps/README.md) is ingested into DIR (incremental: a second run embeds
nothing) and its questions are given to the console's gap finder (backend.insights.GapFinder)
as unanswered questions, each asked once.

The gap finder's one parameter, the percentile of different topics' similarity a gap's questions
must pass (insights.SAME_TOPIC_PERCENTILE), is chosen leaving one book out: each book is measured
at the percentile (of CANDIDATES) whose gaps have the best mean B-cubed F1 on the OTHER books
(ties: the higher, which mixes less). The percentile chosen on all books is printed too: it is
the one to ship. `--percentile P` measures every book at P instead.

Figures per book and their mean:
- B-cubed precision and recall of the gaps against the labels, over the questions labelled with a
  gap: precision, the share of a question's gap that shares its label; recall, the share of its
  label's questions in its gap (averaged over questions);
- pairwise precision and recall: of the pairs put in one gap, the share with one label; of the
  pairs with one label, the share put in one gap;
- mixed gaps: the share of the listed gaps whose questions are not all of one label (an
  off-topic question is a label of its own);
- off-topic listed: the share of the questions labelled off-topic that are listed under "what to
  write next";
- set aside: the share of the questions labelled with a gap that are listed as off-topic.
"""

import argparse
import asyncio
import json
import tempfile
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path

from pydantic import BaseModel
from qdrant_client import QdrantClient

from backend.config import Settings
from backend.engine import Library
from backend.insights import GapFinder, Gaps, TopicLevels
from backend.retrieval.embeddings import make_embedder
from backend.retrieval.index import BookIndex
from ingest_scripts.pipeline import ingest, plan_book

ROOT = Path(__file__).resolve().parents[1]
BOOKS = {
    "sample": ROOT / "sample_book",
    "physical-ai": ROOT.parent / "shared" / "corpora" / "physical-ai-book",
    "redux": ROOT.parent / "shared" / "corpora" / "redux-docs",
}
OFF_TOPIC = "off-topic"
CANDIDATES = [90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 99.5]


class Labelled(BaseModel):
    book: str
    question: str
    label: str


class Purity(BaseModel):
    book: str
    bcubed_precision: float
    bcubed_recall: float
    pairwise_precision: float
    pairwise_recall: float
    mixed_gaps: float
    off_topic_listed: float
    set_aside: float

    @property
    def bcubed_f1(self) -> float:
        return 2 * self.bcubed_precision * self.bcubed_recall / (self.bcubed_precision + self.bcubed_recall)


def load(path: Path) -> dict[str, list[Labelled]]:
    by_book: dict[str, list[Labelled]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = Labelled.model_validate_json(line)
            by_book.setdefault(row.book, []).append(row)
    return by_book


def ingested(data_dir: Path, book: str) -> Library:
    settings = Settings(LECTERN_DATA_DIR=data_dir, LECTERN_BOOK=book)
    settings.qdrant_path.mkdir(parents=True, exist_ok=True)
    client = QdrantClient(path=str(settings.qdrant_path))
    try:
        ingest(plan_book(BOOKS[book], book), BookIndex(client, book), make_embedder(settings),
               files_dir=settings.files_dir(book))
    finally:
        client.close()
    return Library(settings)


def measured(library: Library, book: str, questions: list[Labelled], percentiles: list[float]) -> dict[float, Purity]:
    levels = TopicLevels(library.engine(book).retriever, library.embedder)
    asked = [{"question": q.question, "times": 1, "why": "not answered"} for q in questions]
    return {
        percentile: purity(book, questions, asyncio.run(
            GapFinder(levels, percentile).gaps(book, datetime.now(UTC), asked, limit=len(asked))))
        for percentile in percentiles
    }


def best(by_book: dict[str, dict[float, Purity]], books: list[str]) -> float:
    """The percentile whose gaps have the best mean B-cubed F1 on `books`; the higher on a tie."""
    return max(CANDIDATES, key=lambda p: (round(sum(by_book[b][p].bcubed_f1 for b in books) / len(books), 6), p))


def purity(book: str, questions: list[Labelled], found: Gaps) -> Purity:
    label = {q.question: q.label for q in questions}
    gap_of = {q.question: number for number, gap in enumerate(found.gaps) for q in gap.questions}
    topical = [q.question for q in questions if q.label != OFF_TOPIC]
    # a question the finder did not put in any gap is a gap of its own
    cluster = {q: gap_of.get(q, f"alone: {q}") for q in topical}
    precision = recall = 0.0
    for question in topical:
        same_gap = [other for other in topical if cluster[other] == cluster[question]]
        same_label = [other for other in topical if label[other] == label[question]]
        both = sum(1 for other in same_gap if label[other] == label[question])
        precision += both / len(same_gap)
        recall += both / len(same_label)
    pairs = list(combinations(topical, 2))
    together = [(a, b) for a, b in pairs if cluster[a] == cluster[b]]
    alike = [(a, b) for a, b in pairs if label[a] == label[b]]
    right = sum(1 for a, b in together if label[a] == label[b])
    off_topic = [q.question for q in questions if q.label == OFF_TOPIC]
    set_aside = {q.question for q in found.off_topic}
    kinds = [{q.question if label[q.question] == OFF_TOPIC else label[q.question] for q in gap.questions}
             for gap in found.gaps]
    return Purity(
        book=book,
        bcubed_precision=precision / len(topical),
        bcubed_recall=recall / len(topical),
        pairwise_precision=right / len(together) if together else 1.0,
        pairwise_recall=right / len(alike) if alike else 1.0,
        mixed_gaps=sum(1 for labels in kinds if len(labels) > 1) / len(kinds) if kinds else 0.0,
        off_topic_listed=sum(1 for q in off_topic if q in gap_of) / len(off_topic) if off_topic else 0.0,
        set_aside=sum(1 for q in topical if q in set_aside) / len(topical),
    )


def table(rows: list[Purity]) -> str:
    fields = [name for name in Purity.model_fields if name != "book"]
    mean = {name: sum(getattr(row, name) for row in rows) / len(rows) for name in fields}
    lines = ["| book | " + " | ".join(fields) + " |", "|---" * (len(fields) + 1) + "|"]
    for name, values in [(row.book, row.model_dump()) for row in rows] + [("mean", mean)]:
        lines.append(f"| {name} | " + " | ".join(f"{values[field]:.2f}" for field in fields) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=ROOT / "eval" / "gaps" / "questions.jsonl")
    parser.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "lectern-gap-purity",
                        help="where the books are ingested (kept: a second run embeds nothing)")
    parser.add_argument("--percentile", type=float, help="measure every book at this percentile")
    parser.add_argument("--json", action="store_true", help="one JSON object per book instead of a table")
    args = parser.parse_args()
    percentiles = [args.percentile] if args.percentile is not None else CANDIDATES
    by_book = {}
    for book, questions in load(args.questions).items():
        library = ingested(args.data_dir, book)
        try:
            by_book[book] = measured(library, book, questions, percentiles)
        finally:
            library.close()
    if args.percentile is not None:
        rows = [results[args.percentile] for results in by_book.values()]
    else:
        chosen = {book: best(by_book, [other for other in by_book if other != book]) for book in by_book}
        rows = [by_book[book][chosen[book]] for book in by_book]
        print("percentile chosen on the other books: " + ", ".join(f"{b} {p:g}" for b, p in chosen.items())
              + f"; on all books: {best(by_book, list(by_book)):g}")
    print("\n".join(json.dumps(row.model_dump()) for row in rows) if args.json else table(rows))


if __name__ == "__main__":
    main()
