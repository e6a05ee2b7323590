"""What "unrelated to this book" and "answered by this book" mean for this book, measured on
the book itself.

How similar a question's best passages are to it, and how much support its best sentences
give, depend on the book (its length, its subject, how its pages are written) and on the
embedding model, so no constant can say where "related" or "answerable" starts. At ingest, and
once for an index built by an earlier method, the book is searched with everyday questions no
technical book answers (`everyday_questions.txt`: weather, cooking, sport, travel …); what they
score is what chance gives on this book:
- related: a question whose best passage is no more similar than most of them
  (OFF_TOPIC_QUANTILE) is outside the book's scope;
- answerable: support is a best match over many sentences, so chance alone reaches higher on a
  long book, and on a book about one subject (whose own name every page uses and so weighs
  nothing) a real answer reaches less. A question is answered when its support stands out
  from chance as a significant result does: ANSWERABLE_SIGMAS standard deviations above the
  everyday questions' mean (never below ANSWERABLE_FLOOR); confidently answered at twice that
  distance.
- answerable on one page: a search whose best passages all come from one page, and whose best
  sentences are on it too, has found the page about the question, which chance seldom does
  (the share of everyday questions that do says how seldom). Two signs, taken as independent
  under chance, need less of each: support on one page is enough where its chance, times the
  chance of one page, is as small as the chance the answerable level admits alone. A book
  whose every search finds one page (a single long page) gains next to nothing.
The probes are fixed and the search deterministic, so the same book and model always give the
same figures.

A book may be about an everyday subject (a cookbook answers "How long should I boil an egg?"):
the probes it is about are not chance. They stand out by how similar the book's best passage is
to them, so a probe more than ABOUT_SIGMAS robust deviations above the probes' median
similarity is left out before either level is measured.
"""

from collections.abc import Callable
from pathlib import Path
from statistics import NormalDist
from typing import NamedTuple

import numpy as np
from pydantic import BaseModel

PROBES = Path(__file__).with_name("everyday_questions.txt")
# The share of everyday questions a question must be more similar to the book than, to count
# as related: a high quantile, not the maximum, because a book may happen to touch one everyday
# subject (a cooking example in a programming guide) and that one probe says nothing of the rest.
OFF_TOPIC_QUANTILE = 0.9
# The three-sigma rule: support this many standard deviations above chance is not chance.
# The standard deviation, not a robust spread, because a book whose words happen to recur in
# everyday questions (a "store" in a state-management guide) has a long tail that matters here.
ANSWERABLE_SIGMAS = 3.0
# However low chance falls, an answer holds at least as much evidence as a window with a
# quarter of the question's (IDF-weighted) words in a passage a quarter of the way from the
# book's average similarity to a perfect match (the geometric mean of the two): a book of a few
# passages gives everyday questions almost no support, and so no spread to measure a level from.
ANSWERABLE_FLOOR = 0.25
# Confident answers stand twice as far from chance as the answerable level.
CONFIDENT_DISTANCE = 2.0
# The chance of support at the answerable level or above, were chance support normal.
ANSWERABLE_CHANCE = NormalDist().cdf(-ANSWERABLE_SIGMAS)
# The same rule for the probes a book is about, with the median and the median absolute
# deviation: the estimate must not be moved by the very probes it is looking for.
ABOUT_SIGMAS = 3.0
MAD_TO_SIGMA = 1.4826  # the median absolute deviation of a normal distribution is 0.6745 sigma
# Bump when what is measured changes, here or in how support is scored (retrieval/search.py,
# sentences.py): a stored calibration of another method is measured again.
METHOD = (
    "everyday-80b-less-its-own/similarity-q90/geometric-support-mean+3sd-floor-0.25/no-pointers-2/introduced-examples-2/asked-prices-2"
    "/one-page-product/fusion-without-heading-boost/dense-query-without-the-book-name/passages-read-in-windows/quotes-read-where-they-are/off-topic-cosine"
)


class Probe(NamedTuple):
    """What a search for one question measured on the book (retrieval/search.py: Evidence)."""

    similarity: float  # the best passage's semantic score (against the rest of the book)
    cosine: float  # the best passage's cosine similarity, as the embedding model gives it
    support: float
    one_page: bool


class Calibration(BaseModel):
    """Stored with the index (collection metadata "calibration") and printed by ingest."""

    off_topic_similarity: float  # best-passage similarity most everyday questions stay below
    # The same level in the embedding model's cosine: not measured against the book's other
    # passages, so a book of a few passages on one subject does not lower it (judge.py).
    off_topic_cosine: float
    answerable: float  # support at which the book answers a question
    answerable_on_one_page: float  # the same for a search whose best passages are on one page
    confident: float  # support at which an answer is given with high confidence
    probes: int  # everyday questions measured
    left_out: int = 0  # of them, those the book is about
    method: str = METHOD

    def answerable_for(self, one_page: bool) -> float:
        """The support at which a search's evidence answers (see Evidence.one_page)."""
        return self.answerable_on_one_page if one_page else self.answerable


def probe_questions() -> list[str]:
    return [line.strip() for line in PROBES.read_text(encoding="utf-8").splitlines() if line.strip()]


def calibrate(probe: Callable[[str], Probe]) -> Calibration:
    """`probe(question)`: what a search for the question measured on the book."""
    questions = probe_questions()
    similarities, cosines, supports, one_page = np.array([probe(q) for q in questions]).T
    chance = ~_about_the_book(similarities)
    level = float(np.quantile(similarities[chance], OFF_TOPIC_QUANTILE, method="inverted_cdf"))
    cosine_level = float(np.quantile(cosines[chance], OFF_TOPIC_QUANTILE, method="inverted_cdf"))
    mean, spread = float(supports[chance].mean()), float(supports[chance].std())
    answerable = max(mean + ANSWERABLE_SIGMAS * spread, ANSWERABLE_FLOOR)
    # Laplace's rule of succession: a book none of whose probes found one page still has a chance.
    one_page_chance = (float(one_page[chance].sum()) + 1) / (int(chance.sum()) + 2)
    # fewer than ANSWERABLE_SIGMAS, since the share is below 1: never above the answerable level
    sigmas = NormalDist().inv_cdf(1 - ANSWERABLE_CHANCE / one_page_chance)
    on_one_page = max(mean + sigmas * spread, ANSWERABLE_FLOOR)
    return Calibration(
        off_topic_similarity=round(level, 4),
        off_topic_cosine=round(cosine_level, 4),
        answerable=round(answerable, 4),
        answerable_on_one_page=round(on_one_page, 4),
        confident=round(mean + CONFIDENT_DISTANCE * (answerable - mean), 4),
        probes=len(questions),
        left_out=int((~chance).sum()),
    )


def _about_the_book(similarities: np.ndarray) -> np.ndarray:
    """The probes whose best passage is far more similar to them than to the rest."""
    median = float(np.median(similarities))
    spread = MAD_TO_SIGMA * float(np.median(np.abs(similarities - median)))
    return similarities > median + ABOUT_SIGMAS * spread if spread > 0 else np.zeros(len(similarities), bool)
