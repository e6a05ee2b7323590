"""Whether an answer is right: a judge learned from labelled questions, not a threshold per signal.

The run already measures how strongly the book answers (retrieval/search.py: the best window's
support, read against the book's own chance level from calibration.py; how near the book comes
at all; whether the search found one page; names the book never uses) and what the answer
quotes. The judge weighs those signals together with weights learned by logistic regression on
the project's labelled question sets (`eval/train_judge.py`), in two models:
- `answers`: the probability that the book answers the question. The answer is given at
  `found_at` or above, the level that best told answerable questions from unanswerable ones on
  books left out of the learning; below, the book is said not to answer and its nearest lessons
  are suggested.
- `right`: the probability that it also holds the fact (an answer phrase). An answer is shown
  with high confidence at `high_at` or above, the level at which such answers were right at least
  90% of the time (with 95% confidence) on books the model was not learned on; where no level
  is, none is shown so.
"""

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import numpy as np
from pydantic import BaseModel

from backend.grounding.citations import CitationStream
from backend.grounding.run import RunState
from backend.retrieval import lexical
from backend.retrieval.embeddings import Embedder, reader_for

PACKAGED = Path(__file__).with_name("judge.json")
_MARKER = "["  # citations are renumbered "[1]" markers in the answer text
_CITATION_MARKER = re.compile(r"\[\d+\]")
RAREST = 2  # the ask's words that say most precisely what it is about

# The signals, each the same scale on every book (support and nearness are read against the
# book's own calibration). Nearness is the embedding model's cosine read against the level
# everyday questions reach on the book, not against the book's other passages: in a book of a
# few passages on one subject, every passage is near a question about it.
FEATURES = (
    "support_above",  # the best window's support above the book's answerable level, in units of the
    # distance from it to the confident level (0 at answerable, 1 at confident)
    "cannot_answer",  # the search found windows, but none that gives what the ask asks for (a
    # value of the asked kind, a way for a how-to): support was measured, then set to none
    "lead_above",  # the first cited passage's cosine above what everyday questions' best passages
    # reach on this book, as a share of the way from there to 1
    "rarest_held",  # the share of the ask's two rarest words (IDF-weighted) the first cited passage
    # holds: a question about what the book does not cover often shares all but its specific words
    "names_held",  # the share of the names the ask uses (identifiers, CamelCase, acronyms) that the
    # book uses whole, 1 when it names none: an option or a feature the tool does not have is often
    # made of words the book uses apart (`wal_compression_level`), which `unmentioned` lets through
    "lead_covered",  # how well the first quote covers the ask, word piece by word piece (see coverage):
    # a quote that answers in other words than the question's
    "lead_least_covered",  # the same over the third of the ask the quote covers least: what a
    # question the book leaves open asks about is often the one thing the nearest quote does not say
    "quotes_covered",  # the same read of the quote that covers the ask best, wherever it stands in
    # the answer: an answer whose first quote leads in and whose second answers still answers
    "quotes_least_covered",  # that quote's least covered third
    "answer_share",  # the share of the ask's (IDF-weighted) words the whole answer holds
    "selection",  # the question is about a passage the reader selected
    "followup",  # the question leans on earlier turns
)
LEAST_COVERED = 3  # `lead_least_covered` reads the ask's word pieces matched least, one in this many


class Judgment(BaseModel):
    features: dict[str, float]
    answers: float  # the probability that the book answers the question
    right: float  # the probability that the answer also holds the fact


@dataclass(frozen=True)
class Logistic:
    """A logistic model over FEATURES, standardised by the means and spreads it was learned with."""

    weights: dict[str, float]
    bias: float
    means: dict[str, float]
    spreads: dict[str, float]

    def probability(self, features: dict[str, float]) -> float:
        z = self.bias + sum(
            weight * (features[name] - self.means[name]) / (self.spreads[name] or 1.0)
            for name, weight in self.weights.items()
        )
        return 1 / (1 + math.exp(-max(min(z, 50.0), -50.0)))


@dataclass(frozen=True)
class Judge:
    answers: Logistic
    right: Logistic
    found_at: float
    high_at: float | None  # None: no level was found where such answers are right often enough

    @classmethod
    def load(cls, path: Path = PACKAGED) -> Self:
        return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        return cls(Logistic(**data["answers"]), Logistic(**data["right"]), data["found_at"], data["high_at"])

    def to_dict(self) -> dict[str, Any]:
        return {"answers": self.answers.__dict__, "right": self.right.__dict__,
                "found_at": self.found_at, "high_at": self.high_at}

    def judge(self, state: RunState, stream: CitationStream) -> Judgment:
        features = signals(state, stream)
        return Judgment(features=features, answers=round(self.answers.probability(features), 4),
                        right=round(self.right.probability(features), 4))


def signals(state: RunState, stream: CitationStream) -> dict[str, float]:
    """The run's signals for the judge (FEATURES), from its evidence and the answer `stream`
    carried (its text and citations)."""
    answer = stream.text
    evidence = state.evidence
    calibration = state.retriever.calibration
    corpus = state.retriever.corpus
    answerable = calibration.answerable_for(evidence.one_page)
    unit = max(calibration.confident - calibration.answerable, 1e-3)
    question = state.question
    ask = question.asked.ask or question.text
    ask_terms = lexical.terms(ask, compounds=False)
    asked = lexical.Weights(ask_terms, corpus.idf)
    rarest = lexical.Weights(sorted(set(ask_terms), key=lambda t: (-corpus.idf(t), t))[:RAREST], corpus.idf)
    names = list(lexical.names(ask))
    lead = answer.split(_MARKER, 1)[0].strip()
    quotes = [quote.strip() for quote in _CITATION_MARKER.split(answer) if quote.strip()]
    (covered, least_covered), *by_quote = coverage(state.retriever.embedder, ask, [lead, *quotes])
    best_covered, best_least_covered = max(by_quote, default=(0.0, 0.0))
    first = next((chunk_id for chunk_id, number in stream.numbers.items() if number == 1), None)
    level = calibration.off_topic_cosine
    lead_cosine = state.cosine.get(first, level) if first else level
    return {
        "support_above": (evidence.support - answerable) / unit,
        "cannot_answer": float(evidence.measured > evidence.support and not evidence.unmentioned),
        "lead_above": _above(lead_cosine, level),
        "rarest_held": rarest.share(corpus.terms_of(first)) if first else 0.0,
        "names_held": sum(map(corpus.uses_whole, names)) / len(names) if names else 1.0,
        "lead_covered": covered,
        "lead_least_covered": least_covered,
        "quotes_covered": best_covered,
        "quotes_least_covered": best_least_covered,
        "answer_share": asked.share(lexical.terms(answer, compounds=False)),
        "selection": float(bool(question.selected_text)),
        "followup": float(bool(question.history)),
    }


def _above(cosine: float, level: float) -> float:
    return (cosine - level) / max(1 - level, 1e-3)


def coverage(embedder: Embedder, ask: str, quotes: list[str]) -> list[tuple[float, float]]:
    """How well each quote covers `ask`, read as BERTScore reads a candidate against a reference
    (Zhang et al., 2020): each word piece of the ask is matched with its most similar word piece
    of the quote, both read in context by the packaged model, so "start" finds "launch" where
    word shares find nothing. Gives, for each quote, the mean of those similarities over the
    ask's word pieces, and over the third of them matched least. The ask, and each distinct
    quote, is read once."""
    reader = reader_for(embedder)
    asked = reader.word_piece_vectors(ask)
    read = {quote: reader.word_piece_vectors(quote) for quote in dict.fromkeys(quotes) if quote}
    return [_covered(asked, read[quote]) if quote else (0.0, 0.0) for quote in quotes]


def _covered(asked, quoted) -> tuple[float, float]:  # untyped: numpy arrays of unit row vectors
    if not len(asked) or not len(quoted):
        return 0.0, 0.0
    matched = np.sort((asked @ quoted.T).max(axis=1))
    least = matched[: max(1, len(matched) // LEAST_COVERED)]
    return float(matched.mean()), float(least.mean())
