"""Learn the answer judge (backend/grounding/judge.py) from labelled question sets, and measure it
leaving one book out.

    python eval/train_judge.py SETS.tsv RESULTS_DIR [--write backend/grounding/judge.json] [--judge FILE]
        [--without SIGNAL ...]

SETS.tsv: one line per question set, `name<TAB>questions.jsonl<TAB>book` (more columns are
ignored); RESULTS_DIR/<name>.jsonl: that set's `lectern eval` results, which carry each answer's
signals (`judgment`). The judge only decides status and confidence, never what is quoted, so a
judge's figures on a set follow from the results without running the set again: `--judge FILE`
adds the figures of that judge (the packaged one, say) beside those of the judge learned
without the set's book. An answer the run's own judge declined cannot be given back: measure
on runs whose judge declines nothing (`found_at` 0) to compare judges. `--without` learns the
judge on the signals less those named, to measure what each adds (a run records every signal
of FEATURES). The area under the ROC curve of `answers` on out-of-book probabilities (each book
scored by the model learned without it) is printed on stderr. Each figure's mean over the sets
ends the table; a book alone has no judge learned without it (its rows repeat "as run").

Labels: `answers`, the book answers the question (it is not one of the set's unanswerable
questions); `right` (backend/evaluation.py), the first citation is a gold page and the answer
holds an answer phrase, never for an unanswerable question. Each is a logistic
regression (L2, standardised signals). Its levels:
- found_at: the level that best tells answerable questions from unanswerable ones, each class
  weighed alike (Youden's J), on the training books' out-of-book probabilities;
- high_at: the lowest level at which answers at or above it were right at least HIGH_PRECISION
  of the time, measured on the training books' out-of-book probabilities (each training book
  scored by a model learned without it), so the level holds on a book not learned on.
Books are grouped by the work they hold: a PDF edition is its book's (`physical-ai-pdf` is
`physical-ai`), so a book is never measured with its other edition learned.
"""

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from backend.evaluation import CITING_KINDS, EvalQuestion, EvalResult, load_questions, right
from backend.grounding.judge import FEATURES, Judge, Logistic

L2 = 1.0  # the prior's weight: a standard normal prior on each standardised weight
HIGH_PRECISION = 0.9
WILSON_Z = 1.645  # one-sided 95%
NEWTON_STEPS = 50
LEFT_OUT = "judged (book left out)"
MEAN = "mean over sets"


class Sample:
    def __init__(self, book: str, question: EvalQuestion, result: EvalResult, features: tuple[str, ...]):
        assert result.judgment is not None
        self.book, self.question, self.result = book, question, result
        self.x = np.array([result.judgment[name] for name in features])
        self.answers = question.kind in CITING_KINDS
        self.right = right(question, result)


def work_of(book: str) -> str:
    return book.removesuffix("-pdf")


def read_sets(path: Path) -> list[tuple[str, Path, str]]:
    """SETS.tsv's sets: (name, questions file, book)."""
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(name, Path(questions), book) for name, questions, book, *_ in rows]


def load(
    sets: Iterable[tuple[str, Path, str]], results: Path, features: tuple[str, ...] = FEATURES
) -> tuple[list[Sample], dict[str, tuple[str, list[tuple[EvalQuestion, EvalResult]]]]]:
    """Samples (answers the judge decides, read as `features`), and each set's book and
    questions with results."""
    samples: list[Sample] = []
    every: dict[str, tuple[str, list[tuple[EvalQuestion, EvalResult]]]] = {}
    for name, questions_path, book in sets:
        rows = (results / f"{name}.jsonl").read_text().splitlines()
        by_id = {r.id: r for r in map(EvalResult.model_validate_json, rows)}
        pairs = [(q, by_id[q.id]) for q in load_questions(Path(questions_path))]
        every[name] = (book, pairs)
        samples += [Sample(book, q, r, features) for q, r in pairs if r.judgment is not None]
    return samples, every


def fit(x: np.ndarray, y: np.ndarray, features: tuple[str, ...] = FEATURES) -> Logistic:
    """L2-regularised logistic regression by Newton's method, on standardised signals (the
    columns of `x`, named by `features`)."""
    means, spreads = x.mean(axis=0), x.std(axis=0)
    spreads[spreads == 0] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - means) / spreads])
    w = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], L2)
    penalty[0] = 0.0  # the bias is not shrunk
    for _ in range(NEWTON_STEPS):
        p = 1 / (1 + np.exp(-np.clip(z @ w, -50, 50)))
        gradient = z.T @ (p - y) + penalty * w
        hessian = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return Logistic(
        weights={name: round(float(v), 6) for name, v in zip(features, w[1:], strict=True)},
        bias=round(float(w[0]), 6),
        means={name: round(float(v), 6) for name, v in zip(features, means, strict=True)},
        spreads={name: round(float(v), 6) for name, v in zip(features, spreads, strict=True)},
    )


def probabilities(model: Logistic, samples: list[Sample]) -> np.ndarray:
    return np.array([model.probability(dict(zip(model.weights, s.x, strict=True))) for s in samples])


def found_level(probability: np.ndarray, answerable: np.ndarray) -> float:
    """The level that best tells the questions the book answers from those it does not, each
    class weighed alike (Youden's J: the share of answerable questions answered minus the share
    of unanswerable ones answered, at its highest); answerable questions outnumber the others
    several times in the sets, so plain accuracy would trade every declined unanswerable one away."""
    levels = np.unique(probability)
    gains = [(probability[answerable] >= t).mean() - (probability[~answerable] >= t).mean() for t in levels]
    return float(levels[int(np.argmax(gains))])


def high_level(probability: np.ndarray, right_answers: np.ndarray, found: np.ndarray) -> float | None:
    """The lowest level at which the answers given at or above it are right at least
    HIGH_PRECISION of the time, with 95% confidence (the one-sided Wilson lower bound of their
    precision, so a handful of lucky answers at the very top sets no level); None when no level
    is: no answer is then shown with high confidence."""
    order = np.argsort(-probability)
    kept = found[order]
    p, r = probability[order][kept], right_answers[order][kept].astype(float)
    n = np.arange(1, len(r) + 1)
    share = np.cumsum(r) / n
    z = WILSON_Z
    lower = (share + z * z / (2 * n) - z * np.sqrt(share * (1 - share) / n + z * z / (4 * n * n))) / (1 + z * z / n)
    holds = np.flatnonzero(lower >= HIGH_PRECISION)
    return round(float(p[holds[-1]]), 4) if len(holds) else None


def learn(samples: list[Sample], features: tuple[str, ...] = FEATURES) -> Judge:
    """The judge learned on these samples (read as `features`); its high level from out-of-book
    probabilities."""
    x = np.array([s.x for s in samples])
    answers = fit(x, np.array([s.answers for s in samples], float), features)
    right_model = fit(x, np.array([s.right for s in samples], float), features)
    works = sorted({work_of(s.book) for s in samples})
    out_answers = np.zeros(len(samples))
    out_right = np.zeros(len(samples))
    for work in works:
        inside = np.array([work_of(s.book) == work for s in samples])
        rest = [s for s, i in zip(samples, inside, strict=True) if not i]
        if not rest:
            continue
        xr = np.array([s.x for s in rest])
        a = fit(xr, np.array([s.answers for s in rest], float), features)
        r = fit(xr, np.array([s.right for s in rest], float), features)
        held = [s for s, i in zip(samples, inside, strict=True) if i]
        out_answers[inside] = probabilities(a, held)
        out_right[inside] = probabilities(r, held)
    found_at = found_level(out_answers, np.array([s.answers for s in samples]))
    level = high_level(out_right, np.array([s.right for s in samples]), out_answers >= found_at)
    return Judge(answers, right_model, round(found_at, 4), level)


def area_under_curve(probability: np.ndarray, positive: np.ndarray) -> float:
    """The chance that a positive sample scores above a negative one (ties count half)."""
    above, below = probability[positive], probability[~positive]
    return float((above[:, None] > below).mean() + 0.5 * (above[:, None] == below).mean())


def decided(judge: Judge, result: EvalResult) -> EvalResult:
    """The result as the judge would have given it: the same text and citations, or declined."""
    if result.judgment is None:
        return result
    answers, right_p = judge.answers.probability(result.judgment), judge.right.probability(result.judgment)
    if result.status == "not_found" and not result.citations:  # the model itself declined
        return result
    if answers < judge.found_at or not result.citations:
        return result.model_copy(update={"status": "not_found", "confidence": "not_found", "citations": [], "answer": ""})
    status = "partial" if result.status == "partial" else "found"
    high = judge.high_at is not None and right_p >= judge.high_at
    confidence = "high" if high and status == "found" else "needs_review"
    return result.model_copy(update={"status": status, "confidence": confidence})


def metrics(rows: list[tuple[EvalQuestion, EvalResult]]) -> dict[str, float | None]:
    from backend.evaluation import score

    report = score([q for q, _ in rows], [r for _, r in rows])["all"]
    return {k: report.get(k) for k in ("first_citation_hit", "phrase_hit", "false_abstention", "abstention",
                                       "found_precision", "high_precision", "cross_lesson_coverage", "questions")}


def _mean(figures: list[dict[str, float | None]]) -> dict[str, float | None]:
    """Each metric's mean over the sets that have it (high precision: those with a high answer)."""
    means: dict[str, float | None] = {}
    for name in figures[0]:
        values = [f[name] for f in figures if f[name] is not None]
        means[name] = round(float(np.mean(values)), 4) if values else None
    return means


def report(
    samples: list[Sample],
    every: dict[str, tuple[str, list[tuple[EvalQuestion, EvalResult]]]],
    features: tuple[str, ...] = FEATURES,
    given: tuple[str, Judge] | None = None,
) -> tuple[dict[str, dict[str, dict[str, float | None]]], float | None]:
    """Each set's figures as run and as decided by the judge learned without its book (and by
    the `given` (name, judge), if any), then their mean over the sets; and the area under the
    ROC curve of `answers` on out-of-book probabilities (none with one book)."""
    works = sorted({work_of(s.book) for s in samples})
    judges = {work: learn(rest, features) for work in works
              if (rest := [s for s in samples if work_of(s.book) != work])}
    held = [s for s in samples if work_of(s.book) in judges]  # with one book, no judge is learned without it
    auc = None
    if held:
        out_of_book = np.array([probabilities(judges[work_of(s.book)].answers, [s])[0] for s in held])
        auc = area_under_curve(out_of_book, np.array([s.answers for s in held]))
    figures = {}
    for name, (book, rows) in every.items():
        judge = judges.get(work_of(book))
        after = [(q, decided(judge, r)) for q, r in rows] if judge else rows
        figures[name] = {"as run": metrics(rows), LEFT_OUT: metrics(after)}
        if given:
            figures[name][f"judged ({given[0]})"] = metrics([(q, decided(given[1], r)) for q, r in rows])
    if len(figures) > 1:
        figures[MEAN] = {label: _mean([rows[label] for rows in figures.values()])
                         for label in next(iter(figures.values()))}
    return figures, auc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", type=Path)
    parser.add_argument("results", type=Path)
    parser.add_argument("--write", type=Path, help="write the judge learned on every book here")
    parser.add_argument("--judge", type=Path, help="also decide every set with this judge file")
    parser.add_argument("--without", nargs="+", default=[], choices=FEATURES, metavar="SIGNAL",
                        help="learn the judge without these signals")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    features = tuple(name for name in FEATURES if name not in args.without)
    given = (args.judge.name, Judge.load(args.judge)) if args.judge else None
    samples, every = load(read_sets(args.sets), args.results, features)
    figures, auc = report(samples, every, features, given)
    if auc is not None:
        print(f"answers, out of book: area under the ROC curve {auc:.4f}", file=sys.stderr)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        cols = ("first_citation_hit", "phrase_hit", "false_abstention", "abstention", "found_precision",
                "high_precision")
        width = max(len(label) for rows in figures.values() for label in rows)
        print(f"{'set':22} {'':{width}} " + " ".join(f"{c[:12]:>12}" for c in cols))
        for name, both in figures.items():
            for label, m in both.items():
                print(f"{name:22} {label:{width}} " + " ".join(f"{'' if m[c] is None else m[c]:>12}" for c in cols))
    if args.write:
        judge = learn(samples, features)
        args.write.write_text(json.dumps(judge.to_dict(), indent=1) + "\n")
        print(f"wrote {args.write}: found at {judge.found_at}, high at {judge.high_at}", file=sys.stderr)


if __name__ == "__main__":
    main()
