"""What `lectern ingest` and `lectern report` tell a newcomer: one summary they can act on (what
the book holds, where it is, what to run next), details behind --verbose; which questions the
report counts."""

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from backend.cli import app
from tests.support.books import SAMPLE_BOOK, app_client, copy_data_dir

REPO = Path(__file__).resolve().parents[2]


def lectern(*args: str) -> str:
    """The command's output, its lines' wrapping undone."""
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.stderr
    return " ".join(result.stdout.split())


def test_ingest_prints_one_summary_and_details_only_when_asked(tmp_path: Path) -> None:
    data = tmp_path / "data"
    said = lectern("ingest", str(SAMPLE_BOOK), "--book", "guide", "--data-dir", str(data))
    assert said.startswith("✓ guide: 17 pages, 50 sections, 50 passages, indexed in ")
    assert f"Index: {(data / 'qdrant').resolve()}" in said
    assert f"Next: lectern serve --book guide --data-dir {data}" in said
    assert f'or: lectern ask "How do I …?" --book guide --data-dir {data}' in said
    assert "calibrated" not in said and "quiz" not in said and "embedded" not in said  # details

    again = lectern("ingest", str(SAMPLE_BOOK), "--book", "guide", "--data-dir", str(data), "--verbose")
    assert again.startswith("✓ guide is up to date (17 pages, 50 sections, 50 passages); nothing changed")
    assert "quiz questions without an answer left out: 1" in again and "calibrated on" in again


def test_report_says_which_questions_it_counts(motors_template: Path, tmp_path: Path) -> None:
    data = copy_data_dir(motors_template, tmp_path / "data")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LECTERN_", "QDRANT_"))} | {"PYTHONPATH": str(REPO)}
    asked = subprocess.run(  # its own process, as a maintainer runs it
        [sys.executable, "-m", "backend", "ask", "How does a servo hold its position?", "--book", "motors",
         "--data-dir", str(data)], check=False, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert asked.returncode == 0 and "servo" in asked.stdout.lower(), asked.stderr
    report = lectern("report", "--book", "motors", "--data-dir", str(data))
    assert report.startswith("motors: 0 questions from readers")
    assert "Counted: the questions `lectern serve` answered (the widget, the HTTP API, MCP)" in report
    assert f"stored in {(data / 'lectern.sqlite3').resolve()}" in report and "are not counted" in report

    with app_client(data) as client:
        assert client.post("/api/chat/query", json={"query": "How does a servo hold its position?"}).status_code == 200
    report = lectern("report", "--book", "motors", "--data-dir", str(data))
    assert report.startswith("motors: 1 question from readers") and "Most asked" in report
