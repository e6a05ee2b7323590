"""`lectern bench` against a real uvicorn server: readers, reading times, and what it reports."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from backend.app import SERVER_OPTIONS, create_app
from backend.bench import ThinkTime
from backend.cli import app
from tests.fakes.servers import FakeServer
from tests.support.books import app_settings, copy_data_dir

UNLIMITED = {"LECTERN_RATE_LIMIT": "100000/hour", "LECTERN_RATE_LIMIT_PER_ADDRESS": "100000/hour"}


def _questions(tmp_path: Path) -> Path:
    path = tmp_path / "questions.jsonl"
    path.write_text("\n".join(json.dumps({"question": q}) for q in
                              ["How does a servo hold its position?", "What does a stepper motor do?"]))
    return path


def _report(output: str) -> dict:
    """The report `lectern bench` prints (indented JSON), among the server's one-line logs."""
    lines = output.splitlines()
    start = max(i for i, line in enumerate(lines) if line == "{")
    return json.loads("\n".join(lines[start : lines.index("}", start) + 1]))


def _bench(url: str, questions: Path, *options: str):
    return CliRunner().invoke(app, ["bench", url, "--questions", str(questions), "--readers", "4",
                                    "--seconds", "3", *options])


def test_readers_who_read_between_answers(motors_template: Path, tmp_path: Path) -> None:
    with FakeServer(create_app(app_settings(copy_data_dir(motors_template, tmp_path / "d"), **UNLIMITED)),
                    **SERVER_OPTIONS) as server:
        reading = _bench(server.url, _questions(tmp_path), "--think", "1-2")
        flat_out = _bench(server.url, _questions(tmp_path), "--think", "0")
    assert reading.exit_code == 0 and flat_out.exit_code == 0, reading.output + flat_out.output
    read, fast = _report(reading.output), _report(flat_out.output)
    assert read["errors"] == fast["errors"] == 0 and read["answers"] >= 4
    # Four readers who read 1-2 s after each answer ask at most 3 s / 1 s + 1 times each.
    assert read["answers"] <= 4 * 4 < fast["answers"], (read, fast)
    assert read["latency_p95_ms"] > 0 and sum(read["status_counts"].values()) == read["answers"]


def test_refused_requests_are_errors_and_fail_the_run(motors_template: Path, tmp_path: Path) -> None:
    settings = app_settings(copy_data_dir(motors_template, tmp_path / "d"),
                            LECTERN_RATE_LIMIT="2/minute", LECTERN_RATE_LIMIT_PER_ADDRESS="2/minute")
    with FakeServer(create_app(settings), **SERVER_OPTIONS) as server:
        result = _bench(server.url, _questions(tmp_path), "--think", "0.2")
    assert result.exit_code == 1
    report = _report(result.output)
    assert report["answers"] <= 2 and report["error_kinds"]["HTTP 429"] >= 1


@pytest.mark.parametrize("text", ["soon", "6-2", "-1", "2-x"])
def test_a_reading_time_that_means_nothing_is_refused(text: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="think time"):
        ThinkTime.parse(text)
    result = _bench("http://127.0.0.1:9", _questions(tmp_path), "--think", text)
    assert result.exit_code != 0 and "think time" in result.output
