"""The order in which a search offers its sentence windows to be quoted, best answer first.

Each window is described by what the search read of it (FEATURES); an order is a score of those.
`HandOrder` is the hand-set fit the offline model has quoted by; `LearnedOrder` is a linear score
learned from labelled questions (eval/train_window_order.py), whose weights a JSON file holds.
"""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Self

from backend.retrieval.sentences import ANSWER_TYPE_BONUS, Window

FEATURES = (
    "lexical",  # the IDF-weighted share of the asked words the window holds, read in its passage
    "semantic",  # its passage's (or the part's) similarity to the question, against the book
    "own_fit",  # the fit for the reader's own words: (own share + semantic) / 2
    "support",  # the geometric mean of lexical and semantic
    "gives_amount",  # a number, for "how many"
    "defines",  # a definition, for "what is"
    "spells_out",  # the asked acronym spelled out
    "no_way",  # a how-to's window that gives no way
    "heading_asks",  # its section heading asks the reader's question (a FAQ's)
    "kind_prior",  # lesson 1, index 0.9, quiz 0.85, summary 0.8
    "search_rank",  # its passage's place in the search: 1 for the first, towards 0 for the last
    "code",  # it is lines of an example
    "opens_passage",  # it is the passage's first sentences
    "covered",  # how well it covers the ask word piece by word piece (grounding's reading)
    "least_covered",  # the same over the ask's third it covers least
)
# A window's fit gains up to this much from its passage's search rank (the first passage all of
# it, the last none): about what int8 rounding moves a fit by (the local model's int8 vectors
# are 0.99 alike to its full-precision ones), so it orders windows that close and no others.
SEARCH_RANK_PRIOR = 0.01


class WindowOrder(Protocol):
    reads: bool  # whether it needs the window's reading (`covered`, `least_covered`)

    def score(self, window: Window) -> float: ...


class HandOrder:
    """The fit for the reader's own words plus the answer-type bonuses (a FAQ heading that asks
    the question counts as one), weighed by the passage's kind, the search's rank breaking near
    ties."""

    reads = False

    def score(self, window: Window) -> float:
        features = window.features
        bonuses = (features["gives_amount"] + features["defines"] + features["spells_out"]
                   - features["no_way"] + features["heading_asks"])
        return ((features["own_fit"] + ANSWER_TYPE_BONUS * bonuses) * features["kind_prior"]
                + SEARCH_RANK_PRIOR * features["search_rank"])


@dataclass(frozen=True)
class LearnedOrder:
    """A linear score of the standardised features."""

    weights: dict[str, float]
    means: dict[str, float]
    scales: dict[str, float]

    @property
    def reads(self) -> bool:
        return any(self.weights.get(name) for name in ("covered", "least_covered"))

    def score(self, window: Window) -> float:
        features = window.features
        return sum(w * (features[name] - self.means[name]) / self.scales[name] for name, w in self.weights.items())

    @classmethod
    def load(cls, path: Path) -> Self:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(data["weights"], data["means"], data["scales"])
