"""The book's words: how text becomes lexical terms, and BM25 over them."""

import math
import re
import threading
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

import numpy as np
import snowballstemmer

# Bump when `terms` changes: the terms stored with each passage are then rebuilt on the next ingest.
ANALYZER = "snowball-en/greek-names/letter-digit/chat-fillers-2/acronym-words/acronym-plurals"
K1 = 1.2
B = 0.75
_WORD = re.compile(r"[a-z0-9]+(?:[._'’-][a-z0-9]+)*")
# Compound boundaries: punctuation inside a token, and a letter followed by a digit, so that
# "ROS2" and "ROS 2", "ros2_ws" and "ros2 ws" share their terms.
_COMPOUND = re.compile(r"[._'’-]|(?<=[a-z])(?=[0-9])")
# Books write "α ≈ 0.98" where readers type "alpha": Greek letters are indexed by their names.
_GREEK = {
    code: f" {unicodedata.name(chr(code)).split()[-1].lower()} "
    for code in range(0x391, 0x3CA)
    if unicodedata.name(chr(code), "").startswith("GREEK")
}
_local = threading.local()  # Snowball stemmers keep state between calls: one per thread
# Written as text, one split, not as a list literal (ruff's SIM905): 200 quoted words on one
# line are how a blanket `ruff --fix` left it twice, and nobody can read or edit that.
STOPWORDS = frozenset(
    """a an and are as at be been but by can could do does did for from had has have how i if in
    into is it its it's me my of on or our so than that the their them then there these they this
    those to up was we were what when where which while who whom why will with would you your
    about also just should may might must not no yes any all each some such very more most
    other only own same too s t don
    tell explain describe show know please mean thing things something anything stuff
    really actually basically probably maybe even still already anyway ever here now
    again kind sort lot lots pretty quite gonna wanna gotta kinda sorta hey hi hello thanks
    thank ok okay im ive id whats hows whys wheres dont doesnt didnt cant wont isnt arent
    i'm i've i'd i'll you're we're they're let's lets what's that's there's here's how's
    who's where's don't doesn't didn't can't won't isn't aren't get gets got getting go goes
    going need needs want wants acronym acronyms abbreviation abbreviations abbreviated
    lol lmao btw pls plz u ur idk tbh imo hmm um uh""".split()  # noqa: SIM905
)
# "What does IMU stand for?": the phrase asks for an expansion; "stand" is not its topic.
_STANDS_FOR = re.compile(r"\bstand(?:s|ing)? for\b")
# Names a reader asks about: acronyms (MPPI, ROS2), CamelCase (PostgreSQL) and identifiers
# (robot_localization). Unlike everyday words, they have no paraphrase.
_NAME = re.compile(r"\b(?:[A-Za-z]*[A-Z][A-Za-z]*[A-Z0-9][A-Za-z0-9]*|[a-z]+_[a-z0-9_]+)\b")
# A proper noun (Jotai, Alembic, Kubernetes) has the same shape in English: a capitalised word
# where a sentence does not begin. Not in code spans (`--name Bob` is an example value), nor in
# a question whose words are mostly capitalised (a title says nothing of names).
_PROPER_NOUN = re.compile(r"(?<=[^\s.?!:;\"'(\[] )[A-Z][a-z]+(?:[.-][A-Za-z]+)*\b")
_CODE_SPAN = re.compile(r"`[^`]*`")
_CAPITALISED = re.compile(r"\b[A-Z]")
_CAMEL_HUMP = re.compile(r"(?<=[a-z])(?=[A-Z])")
# "VLAs", "GPUs", "IDs": an acronym's plural is the acronym (Snowball leaves such short words be).
_ACRONYM_PLURAL = re.compile(r"\b([A-Z][A-Z0-9]*[A-Z0-9])s\b")


def terms(text: str, compounds: bool = True) -> list[str]:
    """Lower-cased, stemmed content words. Compound tokens (rqt_graph, 5-10, ros2) are kept
    whole (unless `compounds` is False) and also split, so both spellings match."""
    out: list[str] = []
    text = _ACRONYM_PLURAL.sub(r"\1", text)
    text = _STANDS_FOR.sub(" ", text.lower().translate(_GREEK).replace("_", "."))
    for word in _WORD.findall(text):
        parts = _COMPOUND.split(word)
        for part in [word, *parts] if len(parts) > 1 and compounds else parts:
            if part and part not in STOPWORDS:
                out.append(stem(part))
    return out


def names(text: str) -> dict[str, list[str]]:
    """The names in a text, each with its terms (a CamelCase name split at its humps: IsaacSim
    has the terms of "Isaac Sim"); names made of stop words only ("OK") are left out."""
    found = {name: terms(" ".join(name_words(name)), compounds=False) for name in _NAME.findall(text)}
    prose = _CODE_SPAN.sub(" ", text)
    if len(_CAPITALISED.findall(prose)) * 2 <= len(prose.split()):
        found |= {name: terms(name, compounds=False) for name in _PROPER_NOUN.findall(prose)}
    return {name: name_terms for name, name_terms in found.items() if name_terms}


def name_words(name: str) -> list[str]:
    """The words a name is made of: CamelCase split at its humps, an identifier at its
    underscores, letters apart from the digits before them, as `terms` splits them (IsaacSim →
    Isaac, Sim; ros2_ws → ros, 2, ws; Log4j → Log, 4j)."""
    return re.findall(r"[A-Za-z]+|\d+[a-z]*", _CAMEL_HUMP.sub(" ", name))


class Weights:
    """The IDF weights of the terms a text asks for, looked up and summed once: the share of
    them that a window or a heading holds then costs what its own few terms cost, however long
    the question (a search scores hundreds of windows against the same question).
    Summed exactly (fsum): a set's order changes with the process's string hashing, and a float
    sum in another order can differ in its last bit, which broke ties between windows
    differently from one run to the next."""

    def __init__(self, asked: Iterable[str], idf: Callable[[str], float]):
        self.weights = {term: idf(term) for term in frozenset(asked)}
        self.total = math.fsum(self.weights.values())

    def share(self, present: Iterable[str]) -> float:
        """The IDF-weighted share of the asked terms that `present` holds (0 when none asked)."""
        if not self.total:
            return 0.0
        held = present if isinstance(present, frozenset | set) else frozenset(present)
        if len(held) < len(self.weights):
            return math.fsum(self.weights[t] for t in held if t in self.weights) / self.total
        return math.fsum(weight for t, weight in self.weights.items() if t in held) / self.total


def weighted_share(asked: Iterable[str], present: Iterable[str], idf: Callable[[str], float]) -> float:
    """The IDF-weighted share of the `asked` terms that `present` holds (0 when none asked)."""
    return Weights(asked, idf).share(present)


@lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = snowballstemmer.stemmer("english")
    return stemmer.stemWord(word)


class Postings:
    """A book's BM25 index in memory, built from each passage's terms (stored at ingest): for
    every term, the rows that use it and their weights. A query scores Okapi BM25 with the
    `idf` of Qdrant's sparse search with its IDF modifier, as that search does
    (tests/unit/test_lexical.py compares the two), without embedded Qdrant's per-point Python
    loop or a round trip to a Qdrant server."""

    def __init__(self, documents: Iterable[Sequence[str]]):
        """`documents`: each passage's terms, read one at a time (a big book's terms as strings
        all at once would take more memory than the index)."""
        vocabulary: dict[str, int] = {}
        row_terms: list[np.ndarray] = []
        row_counts: list[np.ndarray] = []
        lengths: list[int] = []
        for text_terms in documents:
            ids = np.fromiter((vocabulary.setdefault(t, len(vocabulary)) for t in text_terms), dtype=np.int32)
            unique, counts = np.unique(ids, return_counts=True)
            row_terms.append(unique)
            row_counts.append(counts)
            lengths.append(len(ids))
        self.size = len(lengths)
        average = max(sum(lengths) / self.size, 1.0) if self.size else 1.0
        sizes = np.array([len(terms) for terms in row_terms], dtype=np.int64)
        # Each passage's distinct terms as ids, row after row: a few bytes each instead of a set.
        self._row_terms = np.concatenate(row_terms) if row_terms else np.zeros(0, dtype=np.int32)
        self._row_bounds = np.concatenate([[0], np.cumsum(sizes)])
        row_of = np.repeat(np.arange(self.size, dtype=np.int32), sizes)
        tf = np.concatenate(row_counts) if row_counts else np.zeros(0, dtype=np.int64)
        norm = K1 * (1 - B + B * np.asarray(lengths, dtype=np.float64)[row_of] / average)
        weights = (tf * (K1 + 1) / (tf + norm)).astype(np.float32)
        by_term = np.argsort(self._row_terms, kind="stable")  # rows stay in order within a term
        bounds = np.searchsorted(self._row_terms[by_term], np.arange(len(vocabulary) + 1))
        rows, weights = row_of[by_term], weights[by_term]
        self._postings = {
            term: (rows[bounds[i] : bounds[i + 1]], weights[bounds[i] : bounds[i + 1]])
            for i, term in enumerate(vocabulary)
        }
        self.df = {term: len(postings[0]) for term, postings in self._postings.items()}
        self._vocabulary = list(vocabulary)

    def idf(self, term: str) -> float:
        """BM25's inverse document frequency, ln(1 + (N − df + 0.5) / (df + 0.5))."""
        df = self.df.get(term, 0)
        return math.log(1 + (self.size - df + 0.5) / (df + 0.5))

    def terms_of(self, row: int) -> frozenset[str]:
        """The distinct terms of one passage."""
        ids = self._row_terms[self._row_bounds[row] : self._row_bounds[row + 1]]
        return frozenset(self._vocabulary[i] for i in ids)

    def counts(self, query_terms: Iterable[str]) -> np.ndarray:
        """How many of the (distinct) terms each row uses."""
        counts = np.zeros(self.size, dtype=np.int32)
        for term in set(query_terms):
            if (posting := self._postings.get(term)) is not None:
                counts[posting[0]] += 1
        return counts

    def scores(self, query_terms: Iterable[str]) -> tuple[np.ndarray, np.ndarray]:
        """The BM25 score of every row for the query's (distinct) terms, and which rows share
        a term with it."""
        scores = np.zeros(self.size)
        matched = np.zeros(self.size, dtype=bool)
        for term in sorted(set(query_terms)):  # the same order of float sums in every process
            if (posting := self._postings.get(term)) is None:
                continue
            rows, weights = posting
            scores[rows] += self.idf(term) * weights
            matched[rows] = True
        return scores, matched
