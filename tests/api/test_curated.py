"""Curated answers: approved in the console, served to questions that mean the same, withdrawn,
and flagged for review when a re-ingest changes a passage they cite."""

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from tests.api.test_api import sse_events
from tests.support.books import app_client, copy_data_dir, ingest_into, write_book
from tests.unit.test_answers import INJECTION_BOOK

TOKEN = "curator-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
BASE = "/api/admin/books/motors"
REVIEWED = "A servo holds its position with a closed feedback loop: it compares where it is with where it should be."


def console_for(data: Path) -> TestClient:
    return app_client(data, LECTERN_ADMIN_TOKEN=TOKEN, LECTERN_RATE_LIMIT="1000/minute")


def approve(client: TestClient, question: str = "How does a servo hold its position?") -> dict[str, Any]:
    passages = client.get(f"{BASE}/passages", params={"q": question}, headers=AUTH).json()
    servo = next(p for p in passages if p["lesson"] == "Servo Motors")
    created = client.post(f"{BASE}/curated", json={"question": question, "answer": REVIEWED,
                                                   "citations": [servo["chunk_id"]]}, headers=AUTH)
    assert created.status_code == 201, created.text
    return created.json()


def ask(client: TestClient, question: str, **extra: Any) -> dict[str, Any]:
    return client.post("/api/chat/query", json={"query": question, **extra}).json()


def test_a_paraphrase_gets_the_reviewed_answer_and_other_questions_do_not(motors_template: Path, tmp_path: Path) -> None:
    with console_for(copy_data_dir(motors_template, tmp_path / "d")) as client:
        curated = approve(client)
        paraphrase = ask(client, "How does a servo motor keep its position?")
        assert paraphrase["reviewed"] is True and paraphrase["response"] == REVIEWED
        assert [s["lesson"] for s in paraphrase["sources"]] == ["Servo Motors"]
        assert paraphrase["status"] == "found" and paraphrase["confidence"] == "high"
        with client.stream("POST", "/api/chat/stream", json={"query": "How do servos hold position?"}) as stream:
            events = sse_events("".join(stream.iter_text()))
        assert "".join(d["delta"] for n, d in events if n == "text") == REVIEWED
        assert ("confidence", {"status": "found", "confidence": "high", "reviewed": True}) in events

        assert ask(client, "What does a stepper motor do?")["reviewed"] is False
        with_selection = ask(client, "How does a servo hold its position?", selected_text="the feedback loop")
        assert with_selection["reviewed"] is False  # a question about a selection is its own question

        listed = client.get(f"{BASE}/curated", headers=AUTH).json()
        assert 0 < listed["same_question_similarity"] < 1
        assert [(a["id"], a["state"], a["changed"]) for a in listed["answers"]] == [(curated["id"], "active", [])]

        assert client.post(f"{BASE}/curated/{curated['id']}/withdraw", headers=AUTH).json() == {"state": "withdrawn"}
        assert ask(client, "How does a servo motor keep its position?")["reviewed"] is False


def test_citations_must_be_passages_of_the_book(motors: TestClient, motors_template: Path, tmp_path: Path) -> None:
    with console_for(copy_data_dir(motors_template, tmp_path / "d")) as client:
        bad = client.post(f"{BASE}/curated", json={"question": "Q?", "answer": "A.", "citations": ["not-a-passage"]},
                          headers=AUTH)
        assert bad.status_code == 400 and "'not-a-passage' are not passages of this book" in bad.json()["detail"]
        empty = client.post(f"{BASE}/curated", json={"question": "Q?", "answer": "A.", "citations": []}, headers=AUTH)
        assert empty.status_code == 400
        assert client.post(f"{BASE}/curated", json={"question": "Q?", "answer": "A.", "citations": ["x"]}).status_code == 401


def test_a_changed_cited_passage_flags_the_answer_for_review(motors_template: Path, tmp_path: Path) -> None:
    data = copy_data_dir(motors_template, tmp_path / "d")
    with console_for(data) as client:
        curated = approve(client)
    edited = dict(INJECTION_BOOK)
    edited["01-motors/01-servos.md"] = edited["01-motors/01-servos.md"].replace(
        "feedback loop", "closed control loop with a potentiometer")
    assert edited != INJECTION_BOOK
    ingest_into(data, write_book(tmp_path / "docs", edited), "motors")
    with console_for(data) as client:
        answer = ask(client, "How does a servo motor keep its position?")
        assert answer["reviewed"] is False  # the book changed under it: a generated answer instead
        listed = client.get(f"{BASE}/curated", headers=AUTH).json()["answers"]
        assert listed[0]["state"] == "needs_review" and listed[0]["changed"]
        passages = client.get(f"{BASE}/passages", params={"q": "servo position"}, headers=AUTH).json()
        servo = next(p for p in passages if p["lesson"] == "Servo Motors")
        again = client.put(f"{BASE}/curated/{curated['id']}", headers=AUTH, json={
            "question": curated["question"], "answer": REVIEWED, "citations": [servo["chunk_id"]]})
        assert again.json()["state"] == "active"
        assert ask(client, "How does a servo motor keep its position?")["reviewed"] is True
