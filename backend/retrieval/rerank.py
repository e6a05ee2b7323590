"""Cohere Rerank, in production: with COHERE_API_KEY set, the search's candidate windows are put
in the order Cohere's reranker reads them in (retrieve, rerank, then the judge's sufficiency gate).

Only the order changes: which windows are quoted first, and so the first citation. Whether the
book answers is still the judge's to say (grounding/judge.py). When Cohere fails or is slow, the
search keeps its own order and logs why: a reranker is an improvement, not a dependency.
"""

import logging
from collections.abc import Sequence

from backend.config import Settings

log = logging.getLogger("lectern.rerank")
DEFAULT_MODEL = "rerank-v3.5"


class CohereReranker:
    def __init__(self, api_key: str, model: str = DEFAULT_MODEL, base_url: str | None = None, timeout: float = 3.0):
        import cohere

        self.model = model
        self.timeout = timeout
        kwargs = {"base_url": base_url} if base_url else {}
        self._client = cohere.ClientV2(api_key=api_key, **kwargs)

    def scores(self, query: str, texts: Sequence[str]) -> list[float] | None:
        """Each text's relevance to the query, in the texts' order; None when Cohere failed."""
        from cohere.core.api_error import ApiError

        if not texts:
            return []
        try:
            response = self._client.rerank(
                model=self.model, query=query, documents=list(texts), top_n=len(texts),
                request_options={"max_retries": 0, "timeout_in_seconds": self.timeout},
            )
        except (ApiError, OSError) as exc:
            log.warning("Cohere Rerank failed, the search keeps its own order: %s", exc)
            return None
        relevance = [0.0] * len(texts)
        for result in response.results:
            relevance[result.index] = result.relevance_score
        return relevance


def make_reranker(settings: Settings) -> CohereReranker | None:
    """Cohere Rerank when LECTERN_RERANK is `cohere`, or `auto` (the default) with COHERE_API_KEY set."""
    if settings.rerank == "none" or (settings.rerank == "auto" and not settings.cohere_api_key):
        return None
    if not settings.cohere_api_key:
        raise ValueError("LECTERN_RERANK=cohere needs COHERE_API_KEY")
    return CohereReranker(settings.cohere_api_key.get_secret_value(), settings.rerank_model or DEFAULT_MODEL,
                          settings.cohere_base_url, settings.dependency_timeout)
