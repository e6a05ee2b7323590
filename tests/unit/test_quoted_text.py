"""No quoted answer shows raw markup: every answer to every eval question of both shared
corpora is read as a reader would see it (slow: ingests the Redux docs too)."""

import re
from pathlib import Path

import pytest

from backend.config import Settings
from backend.engine import Library
from backend.evaluation import load_questions
from backend.grounding import messages
from backend.question import Question
from tests.support.books import EVAL_QUESTIONS, PROJECT_QUESTIONS, REDUX_DOCS, ingest_into

pytestmark = pytest.mark.slow

_CODE = re.compile(r"(`+).+?\1", re.DOTALL)
RAW_MARKUP = {
    "link": re.compile(r"\]\([^)]*\)"),
    "reference link": re.compile(r"\[[^\]]+\]\[[^\]]*\]"),
    "image": re.compile(r"!\["),
    "HTML comment": re.compile(r"<!--|-->"),
    "admonition fence": re.compile(r"(^|\s):::"),
    "tag": re.compile(r"</?[A-Za-z][\w.:-]*(\s[^<>]*)?/?>"),
    "MDX comment": re.compile(r"\{/\*"),
    "emphasis": re.compile(r"(?<![\w\\])(\*\*|__|\*|_)(?=\S)[^*_\n]*?\S\1(?!\w)"),
}


def markup_in(text: str) -> list[str]:
    prose = _CODE.sub("", text)
    return [name for name, pattern in RAW_MARKUP.items() if pattern.search(prose)]


@pytest.fixture(scope="module")
def redux(tmp_path_factory: pytest.TempPathFactory) -> Library:
    data = tmp_path_factory.mktemp("redux") / "data"
    ingest_into(data, REDUX_DOCS, "redux")
    library = Library(Settings(LECTERN_DATA_DIR=data, LECTERN_BOOK="redux"))
    yield library
    library.close()


async def quoted_answers(library: Library, question_files: list[Path]) -> dict[str, str]:
    engine = library.engine()
    answers = {}
    for path in question_files:
        for q in load_questions(path):
            answer = await engine.answer(
                Question(text=q.question, selected_text=q.selected_text, history=q.history)
            )
            if answer.citations:  # a not-found answer links its suggested lessons on purpose
                # the quotes, without the answer's own italic note on a partial answer
                answers[q.id] = answer.text.replace(f"*{messages.NEEDS_REVIEW_NOTE}*", "")
    return answers


def test_the_markup_check_sees_markup() -> None:
    assert markup_in("See [Part 4](./part-4.md) <!-- x --> :::note") == ["link", "HTML comment", "admonition fence"]
    assert markup_in("Uses `<robot>` and `[a](b)` in code [1]") == []
    assert markup_in("They must be _pure functions_ and **never** *mutate*") == ["emphasis"]
    assert markup_in("robot_radius and _id and 2 * 3 and `_x_`") == []


async def test_no_quoted_answer_on_the_physical_ai_book_shows_markup(real_library: Library) -> None:
    files = [EVAL_QUESTIONS, *sorted(PROJECT_QUESTIONS.glob("physical-ai-*.jsonl"))]
    answers = await quoted_answers(real_library, files)
    assert len(answers) > 100
    assert {qid: markup_in(text) for qid, text in answers.items() if markup_in(text)} == {}


async def test_no_quoted_answer_on_the_redux_docs_shows_markup(redux: Library) -> None:
    answers = await quoted_answers(redux, sorted(PROJECT_QUESTIONS.glob("redux-*.jsonl")))
    assert len(answers) > 60
    assert {qid: markup_in(text) for qid, text in answers.items() if markup_in(text)} == {}
