"""How often Lectern's search puts a gold passage first, beside the plain retriever's gold-first rate.

    python benchmarks/search_first.py SETS.tsv --data-dir DATA [--json]

SETS.tsv: one line per question set, `name<TAB>questions.jsonl<TAB>book` (eval/train_judge.py's
format; more columns are ignored), each book ingested under that id into DATA. For every question
that should cite, the search is made as the offline model makes its first one (the question's
search query; with a selection, the question and the selected text) and its first passage hits
when it is of a gold file and, for a PDF, starts on a gold page. This is the passage `/search`,
MCP and the widget's suggested lessons show first (`/search` links a PDF passage to the page of
its sentence nearest the query, which may be the next page: a passage that starts on the page
before its answer counts as a miss here); the answer's first citation is `lectern eval`'s.
"""

import argparse
import json
import os
from pathlib import Path
from statistics import mean

from backend.config import Settings
from backend.engine import Library
from backend.evaluation import CITING_KINDS, CitedSource, EvalQuestion, hits, load_questions
from backend.question import Question
from backend.retrieval.query import Query
from backend.retrieval.search import Retriever


def first_hit_rate(retriever: Retriever, questions: list[EvalQuestion]) -> float:
    """The share of the questions that should cite whose search puts a gold passage first."""
    first_hits: list[bool] = []
    for q in questions:
        if q.kind not in CITING_KINDS:
            continue
        asked = Question(text=q.question, selected_text=q.selected_text, history=q.history)
        query = Query(f"{q.question} {q.selected_text}") if q.selected_text else asked.asked.query
        found = retriever.search(query).hits
        if not found:
            first_hits.append(False)
            continue
        first = found[0].chunk
        cited = CitedSource(source_path=first.source_path, heading=first.heading, url=first.url,
                            module=first.module, lesson=first.lesson, page=first.first_page)
        first_hits.append(any(hits(g, cited) for g in q.gold))
    return round(mean(first_hits), 3) if first_hits else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ["LECTERN_DATA_DIR"] = str(args.data_dir)
    library = Library(Settings())
    rates: dict[str, float] = {}
    try:
        for line in args.sets.read_text(encoding="utf-8").splitlines():
            if line.strip():
                name, questions, book = line.split("\t")[:3]
                rates[name] = first_hit_rate(library.engine(book).retriever, load_questions(Path(questions)))
    finally:
        library.close()
    rates["mean"] = round(mean(rates.values()), 3) if rates else 0.0
    if args.json:
        print(json.dumps(rates, indent=2))
    else:
        for name, rate in rates.items():
            print(f"{name:24} {rate:.3f}")


if __name__ == "__main__":
    main()
