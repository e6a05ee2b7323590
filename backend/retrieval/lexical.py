"""Lexical (BM25) sparse vectors; Qdrant applies the IDF half through its IDF modifier."""

import math
import re
import threading
import unicodedata
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

import numpy as np
import snowballstemmer
from qdrant_client import models

# Bump when `terms` changes: stored sparse vectors are then rebuilt on the next ingest.
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
    lol lmao btw pls plz u ur idk tbh imo hmm um uh""".split()
)
# "What does IMU stand for?": the phrase asks for an expansion; "stand" is not its topic.
_STANDS_FOR = re.compile(r"\bstand(?:s|ing)? for\b")
# Names a reader asks about: acronyms (MPPI, ROS2), CamelCase (PostgreSQL) and identifiers
# (robot_localization). Unlike everyday words, they have no paraphrase.
_NAME = re.compile(r"\b(?:[A-Za-z]*[A-Z][A-Za-z]*[A-Z0-9][A-Za-z0-9]*|[a-z]+_[a-z0-9_]+)\b")
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
    found = {name: terms(_CAMEL_HUMP.sub(" ", name), compounds=False) for name in _NAME.findall(text)}
    return {name: name_terms for name, name_terms in found.items() if name_terms}


def weighted_share(asked: Iterable[str], present: Iterable[str], idf: Callable[[str], float]) -> float:
    """The IDF-weighted share of the `asked` terms that `present` holds (0 when none asked)."""
    asked, present = frozenset(asked), frozenset(present)
    total = sum(idf(t) for t in asked)
    return sum(idf(t) for t in asked & present) / total if total else 0.0


@lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = snowballstemmer.stemmer("english")
    return stemmer.stemWord(word)


def _index(term: str) -> int:
    return zlib.crc32(term.encode())


def document_vector(text_terms: Sequence[str], average_length: float) -> models.SparseVector:
    """A passage's BM25 vector from its terms (`terms` of its text)."""
    counts = Counter(text_terms)
    length = sum(counts.values())
    norm = K1 * (1 - B + B * length / max(average_length, 1.0))
    weights: dict[int, float] = {}
    for term, tf in counts.items():
        weights[_index(term)] = weights.get(_index(term), 0.0) + tf * (K1 + 1) / (tf + norm)
    return models.SparseVector(indices=list(weights), values=list(weights.values()))


def query_vector(text: str) -> models.SparseVector:
    unique = {_index(t) for t in terms(text)}
    return models.SparseVector(indices=list(unique), values=[1.0] * len(unique))


def average_length(term_lists: Iterable[Sequence[str]]) -> float:
    lengths = [len(t) for t in term_lists]
    return sum(lengths) / len(lengths) if lengths else 1.0


class Postings:
    """A book's BM25 vectors as an inverted index in memory. A query scores what Qdrant's sparse
    query with the IDF modifier scores (idf = ln(1 + (N − df + 0.5) / (df + 0.5)) over the whole
    collection; tests/unit/test_lexical.py compares the two rankings on the real book), without
    embedded Qdrant's per-point Python loop (about 28 ms a query on the real book) or a round
    trip to a Qdrant server."""

    def __init__(self, vectors: Sequence[models.SparseVector]):
        rows: dict[int, list[int]] = {}
        weights: dict[int, list[float]] = {}
        for row, vector in enumerate(vectors):
            for index, weight in zip(vector.indices, vector.values, strict=True):
                rows.setdefault(index, []).append(row)
                weights.setdefault(index, []).append(weight)
        self.size = len(vectors)
        self._postings = {index: (np.array(rows[index]), np.array(weights[index])) for index in rows}

    def scores(self, query: models.SparseVector) -> tuple[np.ndarray, np.ndarray]:
        """The BM25 score of every row, and which rows share a term with the query."""
        scores = np.zeros(self.size)
        matched = np.zeros(self.size, dtype=bool)
        for index, value in zip(query.indices, query.values, strict=True):
            if (posting := self._postings.get(index)) is None:
                continue
            rows, weights = posting
            idf = math.log(1 + (self.size - len(rows) + 0.5) / (len(rows) + 0.5))
            scores[rows] += value * idf * weights
            matched[rows] = True
        return scores, matched
