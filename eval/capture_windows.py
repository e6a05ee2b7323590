"""The windows each question's search weighs, with their features and labels: what
eval/train_window_order.py learns the order of a search's windows from.

    python eval/capture_windows.py SETS OUT [--data-dir data] [--only NAME ...]

For each set of SETS (`name<TAB>questions.jsonl<TAB>book`, eval/train_judge.py's format), its
book as ingested in the data folder, each question that cites (answerable, follow-up, cross-
lesson; a selection's search is the selection's) is searched as the offline model searches the
whole question, and every window the search weighs is written to OUT/NAME.windows.jsonl, one
line per question: `{"id", "style", "windows": [{"features", "gold", "phrase"}]}`, where `gold`
says the window is on a gold page (as a citation of it would be scored) and `phrase` that it
holds an answer phrase. A set whose file is there is not captured again.
"""

import argparse
import json
import sys
from pathlib import Path

from backend.config import Settings
from backend.engine import Library
from backend.evaluation import CitedSource, EvalQuestion, hits, load_questions
from backend.grounding.citations import located
from backend.question import Question
from backend.retrieval.index import BookNotIngested
from backend.retrieval.search import Retriever
from backend.retrieval.sentences import Window
from backend.retrieval.window_order import HandOrder

CAPTURED_KINDS = ("answerable", "followup", "cross_lesson")


class Recorder(HandOrder):
    """The hand order, remembering every window it is asked to score."""

    reads = True  # the windows' reading is among the features to learn from

    def __init__(self) -> None:
        self.seen: list[Window] = []

    def score(self, window: Window) -> float:
        self.seen.append(window)
        return super().score(window)


def capture(retriever: Retriever, recorder: Recorder, question: EvalQuestion, top_k: int) -> dict:
    recorder.seen = []
    query = Question(text=question.question, history=question.history).asked.query
    retriever.search(query, top_k)
    corpus = retriever.corpus
    windows = []
    for window in sorted(recorder.seen, key=HandOrder().score, reverse=True):  # each scored once by the sort  # scored once each by the sort, but never twice
        chunk = corpus.chunks[corpus.row[window.chunk_id]]
        url, page = located(chunk, window.sentences[0].text)
        cited = CitedSource(source_path=chunk.source_path, heading=chunk.heading, url=url,
                            module=chunk.module, lesson=chunk.lesson, page=page)
        text = window.text.lower()
        windows.append({
            "features": {name: round(value, 5) for name, value in window.features.items()},
            "gold": any(hits(g, cited) for g in question.gold),
            "phrase": any(p.lower() in text for p in question.answer_phrases),
        })
    return {"id": question.id, "style": question.style, "windows": windows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--data-dir", type=Path, default=Path("data"))
    parser.add_argument("--only", nargs="+", metavar="NAME")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    library = Library(Settings(LECTERN_DATA_DIR=args.data_dir))
    for line in args.sets.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        name, questions, book, *_ = line.split("\t")
        out = args.out / f"{name}.windows.jsonl"
        if (args.only and name not in args.only) or out.exists():
            continue
        try:
            engine = library.engine(book)
        except BookNotIngested as exc:  # the others still are captured
            print(f"left out {name}: {exc}", file=sys.stderr)
            continue
        recorder = Recorder()
        retriever = Retriever(engine.retriever.index, engine.retriever.embedder, window_order=recorder)
        rows = [capture(retriever, recorder, q, engine.top_k)
                for q in load_questions(Path(questions)) if q.kind in CAPTURED_KINDS and q.gold]
        partial = out.with_suffix(".partial")
        partial.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        partial.replace(out)
        print(f"{name}: {len(rows)} questions", file=sys.stderr)


if __name__ == "__main__":
    main()
