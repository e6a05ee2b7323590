"""`schemathesis run` over the OpenAPI spec of a live server: whatever it sends, never a 5xx."""

import re
import subprocess
from pathlib import Path

from backend.app import create_app
from backend.config import Settings
from tests.fakes.servers import FakeServer
from tests.support.books import ingest_into, write_book
from tests.unit.test_answers import INJECTION_BOOK

SCHEMATHESIS = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "schemathesis"


def test_no_server_errors_under_generated_requests(tmp_path: Path) -> None:
    ingest_into(tmp_path / "data", write_book(tmp_path / "docs", INJECTION_BOOK), "motors")
    app = create_app(Settings(
        LECTERN_DATA_DIR=tmp_path / "data", LECTERN_BOOK="motors",
        LECTERN_RATE_LIMIT="100000/hour", LECTERN_RATE_LIMIT_PER_ADDRESS="100000/hour",
    ))
    with FakeServer(app) as live:
        result = subprocess.run(
            [str(SCHEMATHESIS), "run", f"{live.url}/openapi.json", "--checks", "not_a_server_error",
             "--max-examples", "40", "--request-timeout", "30", "--no-color"],
            capture_output=True, text=True, timeout=600, check=False,
        )
    assert result.returncode == 0, result.stdout[-3000:]
    summary = re.search(r"(\d+) generated, (\d+) passed", result.stdout)
    assert summary and summary.group(1) == summary.group(2) and int(summary.group(1)) > 100
