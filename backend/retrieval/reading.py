"""How well a text covers what a reader asks, read by the packaged model word piece by word piece."""

import numpy as np

from backend.retrieval.embeddings import Embedder, reader_for

LEAST_COVERED = 3  # the least covered part of an ask: its word pieces matched least, one in this many


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
