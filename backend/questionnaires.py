"""Questionnaires in batch: a CSV of questions answered from the book, row by row, reviewed by a
maintainer, exported again (the security-questionnaire workflow of the client's documents).

Each row gets FOUND (the grounded answer and its citations), PARTIAL (the book has relevant
passages but not the specifics: `Not specified in provided documents.` with those passages) or
NOT_FOUND (`Not found in provided documents.`, no citations). A maintainer approves a row's
answer as it is or edited, or takes the approval back; an export says which answer it carries.
"""

import asyncio
import csv
import io
import logging
import re
import uuid
from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Literal

from pydantic import BaseModel

from backend.agent.agent import AnswerEngine
from backend.engine import Library
from backend.grounding.answer import Answer
from backend.grounding.citations import label
from backend.question import MAX_QUESTION, Question
from backend.store import ResilientStore
from backend.store.models import (
    Citation,
    GeneratedAnswer,
    Questionnaire,
    QuestionnaireRow,
    RowStatus,
)
from backend.store.resilient import DatabaseUnavailable

log = logging.getLogger("lectern.questionnaires")
NOT_FOUND_TEXT = "Not found in provided documents."
NOT_SPECIFIED_TEXT = "Not specified in provided documents."
MAX_ROWS = 2000
ExportMode = Literal["prefer_approved", "approved_only", "generated"]
# Where a spreadsheet may read a formula: a field's start (the cell's, or one after a separator)
# followed by one of the characters that open a formula.
_FORMULA_START = re.compile(r"(?:^|(?<=[,;\t\r\n]))(?=[=+\-@\t\r])")


class QuestionnaireError(ValueError):
    """The uploaded file cannot be read as a questionnaire (a 400 with this message)."""


class Table(BaseModel):
    header: list[str]
    rows: list[list[str]]


def read_csv(data: bytes) -> Table:
    """The file's header and data rows (UTF-8, with or without a byte-order mark; the dialect
    sniffed, so semicolons and tabs work too; lines ending in CR, LF or both, as the csv module
    reads them when it is given the text's own line ends)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise QuestionnaireError(f"the file is not UTF-8 text (byte {exc.start})") from None
    if "\x00" in text:
        raise QuestionnaireError("the file is not a CSV (it holds NUL characters)")
    if not text.strip():
        raise QuestionnaireError("the file is empty")
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    try:
        records = [record for record in csv.reader(io.StringIO(text, newline=""), dialect) if any(cell.strip() for cell in record)]
    except csv.Error as exc:
        raise QuestionnaireError(f"the file is not a readable CSV ({exc})") from None
    if not records:
        raise QuestionnaireError("the file has no cells with text")
    header, rows = [cell.strip() for cell in records[0]], records[1:]
    if not rows:
        raise QuestionnaireError("the file has a header but no rows")
    if len(rows) > MAX_ROWS:
        raise QuestionnaireError(f"the file has {len(rows)} rows; at most {MAX_ROWS} are answered at once")
    width = len(header)
    return Table(header=header, rows=[(row + [""] * width)[:width] for row in rows])


def question_column(header: Sequence[str], column: str) -> int:
    if column not in header:
        raise QuestionnaireError(f"no column {column!r}; the columns are {', '.join(map(repr, header))}")
    return list(header).index(column)


async def answer(engine: AnswerEngine, question: str) -> GeneratedAnswer:
    return generated(await engine.answer(Question(text=question)))


def generated(result: Answer) -> GeneratedAnswer:
    citations = [Citation.model_validate(c.model_dump()) for c in result.citations]
    if result.status == "found" and citations:
        return GeneratedAnswer(answer=result.text, status=RowStatus.FOUND, citations=citations)
    if result.status == "partial" and citations:
        return GeneratedAnswer(answer=NOT_SPECIFIED_TEXT, status=RowStatus.PARTIAL, citations=citations)
    return GeneratedAnswer(answer=NOT_FOUND_TEXT, status=RowStatus.NOT_FOUND, citations=[])


EXPORT_COLUMNS = ["Answer", "Status", "Citations", "Review"]


def export_csv(header: list[str], rows: list[QuestionnaireRow], mode: ExportMode) -> str:
    """The file as uploaded, with the answer, status, citations and review of every row.
    prefer_approved: the approved answer where there is one, else the generated one;
    approved_only: approved answers, other rows left blank; generated: approvals ignored."""
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL)
    writer.writerow([spreadsheet_safe(cell) for cell in [*header, *EXPORT_COLUMNS]])
    for row in rows:
        made = row.generated
        text, status, cited = (made.answer, made.status.value, made.citations) if made else ("", "", [])
        review = "approved" if row.approved else "generated"
        if mode == "approved_only" and not row.approved:
            text, cited, review = "", [], ""
        elif mode != "generated" and row.approved:
            text = row.approved_answer or ""
        elif mode == "generated":
            review = "generated"
        citations = " | ".join(f"{label(c.lesson, c.section)} <{c.url}>" for c in cited)
        writer.writerow([spreadsheet_safe(cell) for cell in [*row.cells, text, status, citations, review]])
    return out.getvalue()


def spreadsheet_safe(cell: str) -> str:
    """A cell a spreadsheet shows as text (OWASP's advice against CSV injection: readers' and
    uploaders' text reaches these files): a `'` before every formula start, at the cell's start
    and after any separator, since a spreadsheet that splits rows on `;` or tabs (Excel in many
    locales) starts a field there. Files are written with every cell quoted as well."""
    return _FORMULA_START.sub("'", cell)


def new_questionnaire(book: str, name: str, column: str, data: bytes) -> tuple[Questionnaire, list[QuestionnaireRow]]:
    table = read_csv(data)
    index = question_column(table.header, column)
    questionnaire = Questionnaire(
        id=uuid.uuid4().hex, book=book, name=name.strip() or "questionnaire", header=table.header,
        question_column=column, created_at=datetime.now(UTC),
    )
    rows = [
        QuestionnaireRow(position=number, cells=cells, question=" ".join(cells[index].split()))
        for number, cells in enumerate(table.rows, start=1)
    ]
    if too_long := [row.position for row in rows if len(row.question) > MAX_QUESTION]:
        raise QuestionnaireError(
            f"the question of row {too_long[0]} is {len(rows[too_long[0] - 1].question):,} characters long"
            f" ({len(too_long)} such rows); a question has at most {MAX_QUESTION:,}"
        )
    return questionnaire, rows


async def fill(store: ResilientStore, engine: AnswerEngine, questionnaire_id: str) -> int:
    """Answers the rows not answered yet, in order, saving each one as soon as it is answered
    (an interrupted run resumes where it stopped); returns how many it answered."""
    rows = await store.run(lambda db: db.questionnaire_rows(questionnaire_id))
    answered = 0
    for row in rows:
        if row.generated is None and row.question:
            made = await answer(engine, row.question)
            await store.run(lambda db, row=row, made=made: db.save_generated(questionnaire_id, row.position, made))
            answered += 1
    return answered


EXPORT_NAMES: dict[ExportMode, str] = {
    "prefer_approved": "approved-else-generated", "approved_only": "approved-only", "generated": "generated-only",
}


def export_name(questionnaire: Questionnaire, mode: ExportMode, on: date) -> str:
    """`<name>-<book>-<mode>-<YYYY-MM-DD>.csv`, the name reduced to letters, digits, `-` and `_`:
    each mode's download has a name of its own."""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", questionnaire.name).strip("-") or "questionnaire"
    return f"{stem}-{questionnaire.book}-{EXPORT_NAMES[mode]}-{on.isoformat()}.csv"


class Summary(BaseModel):
    id: str
    name: str
    question_column: str
    created_at: datetime
    rows: int
    answered: int
    approved: int
    statuses: dict[str, int]
    answering: bool  # rows are being answered right now


def summary(questionnaire: Questionnaire, rows: list[QuestionnaireRow], answering: bool) -> Summary:
    asked = [row for row in rows if row.question]
    return Summary(
        id=questionnaire.id, name=questionnaire.name, question_column=questionnaire.question_column,
        created_at=questionnaire.created_at, rows=len(rows),
        answered=sum(1 for row in asked if row.generated), approved=sum(1 for row in rows if row.approved),
        statuses={status.value: sum(1 for row in rows if row.generated and row.generated.status == status)
                  for status in RowStatus},
        answering=answering,
    )


class Runs:
    """Answers uploaded questionnaires in the background, one task per questionnaire; at start-up
    it resumes the ones an earlier process left half answered."""

    def __init__(self, store: ResilientStore, library: Library):
        self.store = store
        self.library = library
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def start(self, book: str, questionnaire_id: str) -> None:
        if self.answering(questionnaire_id):
            return
        self._tasks[questionnaire_id] = asyncio.create_task(self._fill(book, questionnaire_id))

    def answering(self, questionnaire_id: str) -> bool:
        task = self._tasks.get(questionnaire_id)
        return task is not None and not task.done()

    async def resume(self) -> None:
        try:
            unfinished = await self.store.run(lambda db: db.unanswered_questionnaires())
        except DatabaseUnavailable as exc:
            log.warning("questionnaires not resumed: %s", exc)
            return
        for book, questionnaire_id in unfinished:
            self.start(book, questionnaire_id)

    async def close(self) -> None:
        for task in self._tasks.values():
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def _fill(self, book: str, questionnaire_id: str) -> None:
        try:
            engine = await self.library.loaded_engine(book)
            answered = await fill(self.store, engine, questionnaire_id)
            log.info("questionnaire answered", extra={"questionnaire": questionnaire_id, "rows": answered})
        except asyncio.CancelledError:
            raise
        except Exception:  # the rows answered so far are saved; the rest wait for a restart
            log.exception("questionnaire %s stopped before its last row", questionnaire_id)
