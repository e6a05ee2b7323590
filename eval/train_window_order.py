"""Learn the order of a search's windows from captured questions, each book left out.

    python eval/train_window_order.py SETS CAPTURED [--write backend/retrieval/window_order.json]

CAPTURED holds eval/capture_windows.py's NAME.windows.jsonl for the sets of SETS
(`name<TAB>questions.jsonl<TAB>book`). The order is a linear score of the windows' features
(window_order.FEATURES, standardised), learned as a listwise softmax (ListNet, Cao et al. 2007):
each question's windows share a probability in proportion to their score's exponential, and the
loss is the cross-entropy against the question's gains (1 for a window on a gold page, 2 when it
also holds an answer phrase, 0 else), L2-regularised; each book weighs alike, whatever its
number of questions. Questions whose windows are all gold or all not say nothing of the order.

It prints, per set and as the mean over sets, the share of questions whose first window is on a
gold page and holds an answer phrase, in the hand order and in the order learned without the
set's book (a book's sets share it). `--write` writes the order learned on every book.
"""

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from backend.retrieval.window_order import FEATURES

L2 = 0.01  # per unit of book weight: weights a few units from 0 cost what a question's loss does
PHRASE_GAIN = 1.0  # a gold window that holds an answer phrase gains this much more


def load(sets: Path, captured: Path) -> dict[str, tuple[str, list[dict]]]:
    """Each set's name → its book and captured questions (sets not captured are left out)."""
    loaded = {}
    for line in sets.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        name, _, book, *_ = line.split("\t")
        path = captured / f"{name}.windows.jsonl"
        if path.exists():
            rows = [json.loads(row) for row in path.read_text(encoding="utf-8").splitlines() if row.strip()]
            loaded[name] = (book, [row for row in rows if row["windows"]])
    return loaded


def _matrix(question: dict) -> tuple[np.ndarray, np.ndarray]:
    windows = question["windows"]
    x = np.array([[w["features"][name] for name in FEATURES] for w in windows], dtype=float)
    gains = np.array([w["gold"] * (1 + PHRASE_GAIN * w["phrase"]) for w in windows], dtype=float)
    return x, gains


def learn(questions: list[tuple[dict, float]], without: list[str] = ()) -> dict:
    """The order learned on (question, weight) pairs, as window_order.LearnedOrder loads it;
    the features `without` keep weight 0."""
    lists = [(*_matrix(q), weight) for q, weight in questions]
    lists = [(x, g, w) for x, g, w in lists if 0 < np.count_nonzero(g) < len(g)]
    stacked = np.vstack([x for x, _, _ in lists])
    means, scales = stacked.mean(axis=0), stacked.std(axis=0)
    scales[scales == 0] = 1.0
    standard = [((x - means) / scales, g / g.sum(), w) for x, g, w in lists]
    total = sum(w for _, _, w in standard)

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        value, gradient = L2 * total * theta @ theta / 2, L2 * total * theta
        for x, target, w in standard:
            s = x @ theta
            p = np.exp(s - s.max())
            p /= p.sum()
            value -= w * float(target @ np.log(np.maximum(p, 1e-300)))
            gradient += w * x.T @ (p - target)
        return value, gradient

    bounds = [(0, 0) if name in without else (None, None) for name in FEATURES]
    theta = minimize(loss, np.zeros(len(FEATURES)), jac=True, method="L-BFGS-B", bounds=bounds).x
    return {
        "weights": {name: round(float(t), 6) for name, t in zip(FEATURES, theta, strict=True) if name not in without},
        "means": {name: round(float(m), 6) for name, m in zip(FEATURES, means, strict=True)},
        "scales": {name: round(float(s), 6) for name, s in zip(FEATURES, scales, strict=True)},
    }


def first(questions: list[dict], order: dict | None) -> dict[str, float]:
    """The share of questions whose first window is gold, holds a phrase, and both: in the
    captured (hand) order, or by `order`."""
    tops = []
    for question in questions:
        x, _ = _matrix(question)
        if order is None:
            top = question["windows"][0]
        else:
            theta = np.array([order["weights"].get(n, 0.0) for n in FEATURES])
            means = np.array([order["means"][n] for n in FEATURES])
            scales = np.array([order["scales"][n] for n in FEATURES])
            top = question["windows"][int(np.argmax((x - means) / scales @ theta))]
        tops.append(top)
    n = max(len(tops), 1)
    return {"gold": sum(t["gold"] for t in tops) / n, "phrase": sum(t["phrase"] for t in tops) / n,
            "both": sum(t["gold"] and t["phrase"] for t in tops) / n}


def weighted(sets: dict[str, tuple[str, list[dict]]], books: set[str]) -> list[tuple[dict, float]]:
    """The questions of those books' sets, each book weighing 1 in all."""
    by_book: dict[str, list[dict]] = defaultdict(list)
    for book, questions in sets.values():
        if book in books:
            by_book[book] += questions
    return [(q, 1 / len(qs)) for qs in by_book.values() for q in qs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", type=Path)
    parser.add_argument("captured", type=Path)
    parser.add_argument("--write", type=Path, help="write the order learned on every book here")
    parser.add_argument("--without", nargs="+", default=[], choices=FEATURES, metavar="FEATURE",
                        help="learn the order without these features (their weights 0)")
    parser.add_argument("--left-out", type=Path, metavar="DIR",
                        help="write each book's order, learned without it, to DIR/BOOK.json")
    args = parser.parse_args()
    sets = load(args.sets, args.captured)
    books = {book for book, _ in sets.values()}
    learned = {book: learn(weighted(sets, books - {book}), args.without) for book in sorted(books)}
    if args.left_out:
        args.left_out.mkdir(parents=True, exist_ok=True)
        for book, order in learned.items():
            (args.left_out / f"{book}.json").write_text(json.dumps(order, indent=1) + "\n", encoding="utf-8")
    print("| set | questions | hand: gold | learned: gold | hand: phrase | learned: phrase | hand: both | learned: both |")
    print("|---|---|---|---|---|---|---|---|")
    rows = []
    for name, (book, questions) in sets.items():
        hand, new = first(questions, None), first(questions, learned[book])
        rows.append((hand, new))
        print(f"| {name} | {len(questions)} | {hand['gold']:.2f} | {new['gold']:.2f} | {hand['phrase']:.2f} | "
              f"{new['phrase']:.2f} | {hand['both']:.2f} | {new['both']:.2f} |")
    mean = {side: {k: sum(r[i][k] for r in rows) / len(rows) for k in ("gold", "phrase", "both")}
            for i, side in enumerate(("hand", "learned"))}
    print(f"| mean over {len(rows)} sets | | {mean['hand']['gold']:.3f} | {mean['learned']['gold']:.3f} | "
          f"{mean['hand']['phrase']:.3f} | {mean['learned']['phrase']:.3f} | {mean['hand']['both']:.3f} | "
          f"{mean['learned']['both']:.3f} |")
    if args.write:
        args.write.write_text(json.dumps(learn(weighted(sets, books), args.without), indent=1) + "\n",
                              encoding="utf-8")


if __name__ == "__main__":
    main()
