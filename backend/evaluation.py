"""`lectern eval`: run a question set through the answer engine and score it.

Question format and metric definitions: ../shared/eval/README.md (summarised in docs/evaluation.md).
"""

import json
import statistics
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from backend.agent.agent import AnswerEngine
from backend.metrics import percentile
from backend.question import Question, Turn

Kind = Literal["answerable", "unanswerable", "selection", "followup", "cross_lesson"]
CITING_KINDS = ("answerable", "selection", "followup", "cross_lesson")


class Gold(BaseModel):
    file: str
    heading: str = ""
    page: int | None = None  # of a PDF: the page that holds the supporting passage
    source: str = ""  # of a PDF's gold: the file of the book's other edition it was placed from


def hits(gold: Gold, cited: "CitedSource") -> bool:
    """A citation hits when it is of the gold file and, for a gold page, on that page."""
    return cited.file == gold.file and (gold.page is None or cited.page == gold.page)


class EvalQuestion(BaseModel):
    id: str
    kind: Kind
    question: str
    gold: list[Gold] = Field(default_factory=list)
    answer_phrases: list[str] = Field(default_factory=list)
    selected_text: str | None = None
    history: list[Turn] = Field(default_factory=list)
    # How the reader wrote it (pasted, backstory, paraphrase, terse, plain): scored apart too
    style: str | None = None


class CitedSource(BaseModel):
    source_path: str
    heading: str
    url: str
    module: str
    lesson: str
    page: int | None = None

    @property
    def file(self) -> str:
        """The file the passage is in (a PDF's chapters are pages `file.pdf#001`, …)."""
        return self.source_path.split("#", 1)[0]


class EvalResult(BaseModel):
    id: str
    kind: Kind
    status: str
    confidence: str = ""  # results written before confidence was recorded have none
    answer: str
    citations: list[CitedSource]
    latency_ms: float
    judgment: dict[str, float] | None = None  # the judge's signals and probabilities (eval/train_judge.py)


def load_questions(path: Path) -> list[EvalQuestion]:
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            questions.append(EvalQuestion.model_validate_json(line))
        except ValidationError as exc:
            raise ValueError(f"{path}:{number}: not an eval question: {exc.errors()[0]['msg']}") from exc
    return questions


async def run(engine: AnswerEngine, questions: Iterable[EvalQuestion]) -> list[EvalResult]:
    # Load the model, the book and the agent first, as the server does at start-up.
    await engine.answer(Question(text="warm up"))
    results = []
    for q in questions:
        started = time.perf_counter()
        answer = await engine.answer(
            Question(text=q.question, selected_text=q.selected_text, history=q.history)
        )
        results.append(
            EvalResult(
                id=q.id,
                kind=q.kind,
                status=answer.status,
                confidence=answer.confidence,
                answer=answer.text,
                citations=[CitedSource.model_validate(c.model_dump()) for c in answer.citations],
                latency_ms=round((time.perf_counter() - started) * 1000, 1),
                judgment={**answer.judgment.features, "answers": answer.judgment.answers,
                          "right": answer.judgment.right} if answer.judgment else None,
            )
        )
    return results


def _passages(gold: list[Gold]) -> list[list[Gold]]:
    """The gold grouped by the passage it places (its file, and the lesson it was placed from
    or else its heading): a PDF question's passage may be on any of several pages, and
    covering a lesson means citing one of them."""
    grouped: dict[tuple[str, str], list[Gold]] = {}
    for g in gold:
        grouped.setdefault((g.file, g.source or g.heading), []).append(g)
    return list(grouped.values())


def _rate(values: list[bool]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def _first_hits(q: EvalQuestion, r: EvalResult) -> bool:
    return bool(r.citations) and any(hits(g, r.citations[0]) for g in q.gold)


def _holds_phrase(q: EvalQuestion, r: EvalResult) -> bool:
    text = r.answer.lower()
    return any(p.lower() in text for p in q.answer_phrases)


def right(q: EvalQuestion, r: EvalResult) -> bool:
    """An answer given as found is right when its first citation hits the gold and it holds an
    answer phrase (when the question has any); an answer to an unanswerable question never is."""
    return q.kind in CITING_KINDS and _first_hits(q, r) and (not q.answer_phrases or _holds_phrase(q, r))


def score(questions: list[EvalQuestion], results: list[EvalResult]) -> dict[str, dict[str, float | None]]:
    """Metrics per kind, per style (`style:paraphrase`, for questions that carry one) and
    overall, as defined in the eval README, plus two precisions: `found_precision`, the share of
    answers given as found that are right (see `right`), and `high_precision`, the same share of
    answers shown with high confidence."""
    by_id = {r.id: r for r in results}
    rows: dict[str, dict[str, list[bool]]] = {}
    latencies: dict[str, list[float]] = {}
    for q in questions:
        r = by_id[q.id]
        cited = r.citations
        hit = [any(hits(g, c) for g in q.gold) for c in cited]
        for group in (q.kind, "all", *([f"style:{q.style}"] if q.style else [])):
            metrics = rows.setdefault(group, {})
            latencies.setdefault(group, []).append(r.latency_ms)
            if q.kind in CITING_KINDS:
                metrics.setdefault("first_citation_hit", []).append(_first_hits(q, r))
                metrics.setdefault("any_citation_hit", []).append(any(hit))
                metrics.setdefault("false_abstention", []).append(r.status == "not_found")
            if q.answer_phrases:
                metrics.setdefault("phrase_hit", []).append(_holds_phrase(q, r))
            if q.kind == "unanswerable":
                metrics.setdefault("abstention", []).append(r.status == "not_found" and not cited)
            if r.status == "found":
                metrics.setdefault("found_precision", []).append(right(q, r))
            if r.confidence == "high":
                metrics.setdefault("high_precision", []).append(right(q, r))
            if q.kind == "cross_lesson":
                covered = [any(hits(g, c) for g in passage for c in cited) for passage in _passages(q.gold)]
                metrics.setdefault("cross_lesson_coverage", []).append(all(covered))
    report: dict[str, dict[str, float | None]] = {}
    for group, metrics in rows.items():
        report[group] = {name: _rate(values) for name, values in metrics.items()}
        times = latencies[group]
        report[group]["latency_p50_ms"] = round(statistics.median(times), 1)
        report[group]["latency_p95_ms"] = round(percentile(times, 0.95), 1)
        report[group]["questions"] = len(times)
    return report


def write_results(path: Path, results: list[EvalResult]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for result in results:
            out.write(json.dumps(result.model_dump(), ensure_ascii=False) + "\n")
