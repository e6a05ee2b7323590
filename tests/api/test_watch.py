"""`lectern serve --watch`: an edited page is answerable within seconds, while readers asking
at the same time all get their answers (a real uvicorn server, embedded Qdrant, local model)."""

import threading
import time
from pathlib import Path

import httpx

from backend.app import create_app
from backend.config import Settings
from tests.fakes.servers import FakeServer
from tests.support.books import ingest_into, write_book
from tests.unit.test_answers import INJECTION_BOOK

READERS = 5
EDIT_DEADLINE_S = 10
NEW_SECTION = """

## Thermal Protection

The servo shuts itself down when its windings pass 85 degrees Celsius, and it restarts only
after cooling below 60 degrees. Thermal protection keeps a stalled servo from burning out.
"""


def test_an_edit_is_answerable_within_seconds_while_readers_keep_getting_answers(tmp_path: Path) -> None:
    docs = write_book(tmp_path / "docs", INJECTION_BOOK)
    ingest_into(tmp_path / "data", docs, "motors")  # what was served before the edit
    settings = Settings(
        LECTERN_DATA_DIR=tmp_path / "data", LECTERN_BOOK="motors", LECTERN_WATCH=docs,
        LECTERN_RATE_LIMIT="100000/hour", LECTERN_RATE_LIMIT_PER_ADDRESS="100000/hour",
    )
    answers: list[tuple[int, str]] = []  # (HTTP status, answer status) of every reader's question
    stop = threading.Event()

    with FakeServer(create_app(settings)) as live:
        def reader(number: int) -> None:
            with httpx.Client(base_url=live.url, timeout=30) as client:
                while not stop.is_set():
                    response = client.post(
                        "/api/chat/query", json={"query": "How does a servo hold its position?"},
                        headers={"X-Session-Id": f"reader-{number}"},
                    )
                    answers.append((response.status_code, response.json().get("status", "")))

        readers = [threading.Thread(target=reader, args=(n,)) for n in range(READERS)]
        for thread in readers:
            thread.start()
        time.sleep(1)
        servos = docs / "01-motors/01-servos.md"
        servos.write_text(servos.read_text(encoding="utf-8") + NEW_SECTION, encoding="utf-8")
        edited = time.monotonic()
        answered_after = None
        with httpx.Client(base_url=live.url, timeout=30) as client:
            while time.monotonic() - edited < 3 * EDIT_DEADLINE_S:
                response = client.post("/api/chat/query", json={
                    "query": "At what temperature does the servo shut itself down?"})
                if "85 degrees" in response.json().get("response", ""):
                    answered_after = time.monotonic() - edited
                    break
                time.sleep(0.2)
        stop.set()
        for thread in readers:
            thread.join(timeout=60)

    assert answered_after is not None and answered_after <= EDIT_DEADLINE_S, answered_after
    assert len(answers) >= READERS  # every reader asked, during the re-ingest too
    assert all(answer == (200, "found") for answer in answers), [a for a in answers if a != (200, "found")]
