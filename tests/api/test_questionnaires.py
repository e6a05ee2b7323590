"""Questionnaires in batch: upload a CSV, every row answered from the book with FOUND / PARTIAL /
NOT_FOUND, review (approve, edit, unapprove, filter), export in each mode; the same from the CLI."""

import asyncio
import csv
import io
import re
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from backend.cli import app as cli
from backend.config import Settings
from backend.questionnaires import NOT_FOUND_TEXT, export_csv, new_questionnaire
from backend.store import open_store
from backend.store.models import Citation, GeneratedAnswer, QuestionnaireRow, RowStatus
from tests.support.books import app_client, copy_data_dir

TOKEN = "questionnaire-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
QUESTIONNAIRE = """Id;Control;Question;Owner
1;SEC-1;How does a servo hold its position?;ops
2;SEC-2;How do jet engines produce thrust?;ops
3;SEC-3;;ops
4;SEC-4;"What does a stepper motor do?";eng
"""


def console_for(data: Path, **env: Any) -> TestClient:
    return app_client(data, LECTERN_ADMIN_TOKEN=TOKEN, **env)


def upload(client: TestClient, text: str, column: str = "Question", name: str = "Vendor review Q4") -> Any:
    return client.post("/api/admin/books/motors/questionnaires", params={"column": column, "name": name},
                       content=text.encode(), headers={**AUTH, "content-type": "text/csv"})


def answered(client: TestClient, questionnaire_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        detail = client.get(f"/api/admin/books/motors/questionnaires/{questionnaire_id}", headers=AUTH).json()
        if not detail["questionnaire"]["answering"]:
            return detail
        assert time.monotonic() < deadline, "the questionnaire was never answered"
        time.sleep(0.1)


def exported(client: TestClient, questionnaire_id: str, mode: str) -> list[dict[str, str]]:
    response = client.get(f"/api/admin/books/motors/questionnaires/{questionnaire_id}/export",
                          params={"mode": mode}, headers=AUTH)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    today = datetime.now(UTC).date().isoformat()
    named = {"prefer_approved": "approved-else-generated", "approved_only": "approved-only", "generated": "generated-only"}
    assert f'filename="Vendor-review-Q4-motors-{named[mode]}-{today}.csv"' in response.headers["content-disposition"]
    return list(csv.DictReader(io.StringIO(response.text)))


@pytest.mark.parametrize("database", ["sqlite", "postgres"])
def test_autofill_review_and_export(motors_template: Path, tmp_path: Path, database: str, request: pytest.FixtureRequest) -> None:
    env = {"DATABASE_URL": request.getfixturevalue("postgres_url")} if database == "postgres" else {}
    with console_for(copy_data_dir(motors_template, tmp_path / "d"), **env) as client:
        created = upload(client, QUESTIONNAIRE)
        assert created.status_code == 201 and created.json()["rows"] == 4
        detail = answered(client, created.json()["id"])
        summary, rows = detail["questionnaire"], {row["position"]: row for row in detail["rows"]}
        assert detail["header"] == ["Id", "Control", "Question", "Owner"]
        assert summary["answered"] == 3 and summary["statuses"]["NOT_FOUND"] >= 1
        servo = rows[1]["generated"]
        assert servo["status"] == "FOUND" and servo["citations"] and "feedback loop" in servo["answer"]
        assert rows[2]["generated"] == {"answer": NOT_FOUND_TEXT, "status": "NOT_FOUND", "citations": []}
        assert rows[3]["generated"] is None  # nothing was asked in that row

        base = f"/api/admin/books/motors/questionnaires/{summary['id']}"
        approved = client.put(f"{base}/rows/1/approval", json={}, headers=AUTH).json()
        assert approved["approved_answer"] == servo["answer"]
        edited = client.put(f"{base}/rows/4/approval", json={"answer": "It moves in exact steps."}, headers=AUTH)
        assert edited.json()["approved_answer"] == "It moves in exact steps."
        assert client.put(f"{base}/rows/3/approval", json={}, headers=AUTH).status_code == 400
        client.put(f"{base}/rows/2/approval", json={"answer": "Out of scope."}, headers=AUTH)
        assert client.delete(f"{base}/rows/2/approval", headers=AUTH).json()["approved_answer"] is None

        only_found = client.get(base, params={"status": "FOUND"}, headers=AUTH).json()["rows"]
        assert {row["position"] for row in only_found} >= {1}
        assert all(row["generated"]["status"] == "FOUND" for row in only_found)
        approved_rows = client.get(base, params={"review": "approved"}, headers=AUTH).json()["rows"]
        assert [row["position"] for row in approved_rows] == [1, 4]

        prefer = exported(client, summary["id"], "prefer_approved")
        assert [row["Id"] for row in prefer] == ["1", "2", "3", "4"] and prefer[0]["Owner"] == "ops"
        assert prefer[3]["Answer"] == "It moves in exact steps." and prefer[3]["Review"] == "approved"
        assert prefer[1]["Answer"] == NOT_FOUND_TEXT and prefer[1]["Status"] == "NOT_FOUND"
        assert re.match(r"Servo Motors · .+ <\S+>", prefer[0]["Citations"])
        approved_only = exported(client, summary["id"], "approved_only")
        assert [row["Answer"] for row in approved_only] == [servo["answer"], "", "", "It moves in exact steps."]
        generated = exported(client, summary["id"], "generated")
        assert generated[3]["Answer"] == rows[4]["generated"]["answer"] and generated[3]["Review"] == "generated"

        listed = client.get("/api/admin/books/motors/questionnaires", headers=AUTH).json()
        assert [(q["name"], q["approved"]) for q in listed] == [("Vendor review Q4", 2)]
        assert client.delete(base, headers=AUTH).status_code == 204
        assert client.get(base, headers=AUTH).status_code == 404


@pytest.mark.parametrize(("content", "column", "message"), [
    (b"\xff\xfeQ\n", "Q", "not UTF-8"),
    (b"", "Q", "the file is empty"),
    (b"Question\n", "Question", "no rows"),
    (b"Id,Question\n1,What?\n", "Prompt", "no column 'Prompt'; the columns are 'Id', 'Question'"),
    (("Question\n" + "What?\n" * 2001).encode(), "Question", "at most 2000"),
    (b"Question\nWhat\x00?\n", "Question", "NUL"),
    (("Question\nWhat?\n" + "why " * 600 + "\n").encode(), "Question",
     "the question of row 2 is 2,399 characters long (1 such rows); a question has at most 2,000"),
    (b",,,\n,,\n", "Question", "no cells with text"),
    (b"Question\n" + b"x" * 200_000 + b"\n", "Question", "not a readable CSV"),
])
def test_a_file_that_is_not_a_questionnaire_gets_400(
    motors_template: Path, tmp_path: Path, content: bytes, column: str, message: str
) -> None:
    with console_for(copy_data_dir(motors_template, tmp_path / "d")) as client:
        response = client.post("/api/admin/books/motors/questionnaires", params={"column": column},
                               content=content, headers={**AUTH, "content-type": "text/csv"})
        assert response.status_code == 400 and message in response.json()["detail"]
        assert client.get("/api/admin/books/motors/questionnaires", headers=AUTH).json() == []


def test_exported_cells_never_start_a_formula(motors_template: Path, tmp_path: Path) -> None:
    with console_for(copy_data_dir(motors_template, tmp_path / "d")) as client:
        created = upload(client, 'Question,Owner\n"=HYPERLINK(""http://evil.example"",""x"")",@ops\n').json()
        answered(client, created["id"])
        rows = exported(client, created["id"], "generated")
    assert rows[0]["Question"].startswith("'=HYPERLINK(") and rows[0]["Owner"] == "'@ops"


def test_a_file_whose_lines_end_in_cr_alone_is_read(motors_template: Path, tmp_path: Path) -> None:
    """Classic Mac OS and some exporters end lines with CR alone: it got csv's internal message
    ("new-line character seen in unquoted field")."""
    with console_for(copy_data_dir(motors_template, tmp_path / "d")) as client:
        created = upload(client, 'Question,Owner\rHow does a servo hold its position?,ops\r"two\rlines",x\r')
        assert created.status_code == 201, created.text
        assert created.json()["rows"] == 2


def test_no_field_of_an_export_starts_a_formula_whatever_the_spreadsheet_splits_on(
    motors_template: Path, tmp_path: Path
) -> None:
    """Excel in de/fr/it/es/nl/pl locales splits a row on `;`: a formula after one is a field's
    start there. Every cell is quoted, and every formula start after a separator neutralised."""
    with console_for(copy_data_dir(motors_template, tmp_path / "d")) as client:
        created = upload(client, 'Question,Owner\n"What is lidar;=WEBSERVICE(""http://evil.example"");",ops\n'
                                  '"=1+1;=2+2",-3\n').json()
        answered(client, created["id"])
        response = client.get(f"/api/admin/books/motors/questionnaires/{created['id']}/export",
                              params={"mode": "generated"}, headers=AUTH)
    lines = response.text.splitlines()
    assert all(line.startswith('"') and line.endswith('"') for line in lines)  # every cell quoted
    for separator in ",;\t":
        fields = [field.strip('"') for line in lines for field in line.split(separator)]
        assert not [f for f in fields if f[:1] in ("=", "+", "-", "@")], separator
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert rows[0]["Question"] == "What is lidar;'=WEBSERVICE(\"http://evil.example\");"
    assert (rows[1]["Question"], rows[1]["Owner"]) == ("'=1+1;'=2+2", "'-3")


def test_a_questionnaire_left_half_answered_is_finished_after_a_restart(motors_template: Path, tmp_path: Path) -> None:
    data = copy_data_dir(motors_template, tmp_path / "d")
    questionnaire, rows = new_questionnaire("motors", "left over", "Question", QUESTIONNAIRE.encode())

    async def left_by_an_earlier_process() -> None:
        store = open_store(Settings(LECTERN_DATA_DIR=data))
        await store.migrate()
        await store.create_questionnaire(questionnaire, rows)
        await store.close()

    asyncio.run(left_by_an_earlier_process())
    with console_for(data) as client:
        detail = answered(client, questionnaire.id)
        base = f"/api/admin/books/motors/questionnaires/{questionnaire.id}"
        assert client.post(f"{base}/answer", headers=AUTH).json() == {"answering": True}  # nothing left: a no-op
        assert answered(client, questionnaire.id)["rows"] == detail["rows"]
        assert client.post("/api/admin/books/motors/questionnaires/nope/answer", headers=AUTH).status_code == 404
    assert detail["questionnaire"]["answered"] == 3


def test_batch_from_the_command_line(motors_template: Path, tmp_path: Path) -> None:
    data = copy_data_dir(motors_template, tmp_path / "d")
    source = tmp_path / "review.csv"
    source.write_text(QUESTIONNAIRE, encoding="utf-8")
    result = CliRunner().invoke(cli, ["batch", str(source), "--column", "Question", "--out", str(tmp_path / "out.csv"),
                                      "--book", "motors", "--data-dir", str(data)])
    assert result.exit_code == 0, result.output
    assert "4 rows" in result.output and "NOT_FOUND" in result.output
    rows = list(csv.DictReader((tmp_path / "out.csv").open(encoding="utf-8")))
    assert [row["Status"] for row in rows][1:3] == ["NOT_FOUND", ""]
    assert rows[0]["Status"] == "FOUND" and rows[0]["Citations"]
    missing = CliRunner().invoke(cli, ["batch", str(source), "--column", "Nope", "--out", str(tmp_path / "x.csv"),
                                       "--book", "motors", "--data-dir", str(data)])
    assert missing.exit_code == 1 and "no column 'Nope'" in missing.output


def test_an_exported_citation_names_its_lesson_and_section_without_empty_parts() -> None:
    """A page's opening passage has no section: its citation is the lesson alone."""
    cited = [Citation(module="Motors", lesson="Servo Motors", section="", url="/docs/servos"),
             Citation(module="Motors", lesson="Servo Motors", section="Feedback", url="/docs/servos#feedback")]
    row = QuestionnaireRow(position=1, cells=["Is it closed-loop?"], question="Is it closed-loop?",
                           generated=GeneratedAnswer(answer="Yes.", status=RowStatus.FOUND, citations=cited))
    exported = next(csv.DictReader(io.StringIO(export_csv(["Question"], [row], "generated"))))
    assert exported["Citations"] == "Servo Motors </docs/servos> | Servo Motors · Feedback </docs/servos#feedback>"
