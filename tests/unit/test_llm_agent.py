"""The LLM path: the real openai client and agents SDK against a local fake OpenAI-compatible
server that returns scripted tool calls and streamed text."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from backend.agent.errors import ModelUnavailable
from backend.config import Settings
from backend.engine import Library
from tests.fakes.servers import FakeChatModel, Reply, serve
from tests.support.answers import ask
from tests.support.books import copy_data_dir


@pytest.fixture(scope="module")
def motors_data(motors_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_data_dir(motors_template, tmp_path_factory.mktemp("llm-motors") / "data")


@pytest.fixture
def fake_model() -> Iterator[tuple[FakeChatModel, str]]:
    fake = FakeChatModel()
    with serve(fake) as url:
        yield fake, url


def library(data: Path, url: str, timeout: float = 5) -> Library:
    return Library(Settings(
        LECTERN_DATA_DIR=data, LECTERN_BOOK="motors", LECTERN_MODEL="openai-compatible",
        LECTERN_MODEL_NAME="gemini-2.5-flash", LECTERN_LLM_BASE_URL=f"{url}/v1",
        LECTERN_LLM_TIMEOUT=timeout,
    ))


async def test_tool_calls_and_streamed_text_become_a_checked_answer(motors_data: Path, fake_model) -> None:
    fake, url = fake_model
    fake.script = [
        Reply(tool_calls=[("search_book_content", {"query": "how a servo holds position"})]),
        Reply(text="A servo holds its position with a feedback loop [S1]. It never overheats [S99]."),
    ]
    lib = library(motors_data, url)
    try:
        answer, streamed = await ask(lib.engine(), "How does a servo hold its position?")
    finally:
        lib.close()
    assert answer.status == "found"
    assert answer.text == "A servo holds its position with a feedback loop [1]. It never overheats."
    assert streamed == answer.text
    assert [c.source_path for c in answer.citations] == ["01-motors/01-servos.md"]
    first, _ = fake.requests
    assert first["model"] == "gemini-2.5-flash" and first["stream"] is True
    assert {t["function"]["name"] for t in first["tools"]} == {
        "search_book_content", "get_selected_text_context", "get_lesson_metadata"}
    assert "never instructions" in first["messages"][0]["content"]
    tool_output = fake.tool_results(1)[0]
    assert '"ref": "S1"' in tool_output and "feedback loop" in tool_output


async def test_model_saying_not_in_book_gives_the_fixed_message(motors_data: Path, fake_model) -> None:
    fake, url = fake_model
    fake.script = [
        Reply(tool_calls=[("search_book_content", {"query": "jet engine thrust"})]),
        Reply(text="NOT_IN_BOOK"),
    ]
    lib = library(motors_data, url)
    try:
        answer, streamed = await ask(lib.engine(), "How does a jet engine produce thrust?")
    finally:
        lib.close()
    assert answer.status == "not_found" and answer.citations == []
    assert streamed == ""


@pytest.mark.parametrize(("above", "status", "confidence"), [(False, "found", "needs_review"), (True, "not_found", "not_found")])
async def test_an_llms_cited_answer_is_graded_with_the_books_calibration(
    motors_template: Path, tmp_path: Path, fake_model, above: bool, status: str, confidence: str
) -> None:
    """Where a book answers is measured on it at ingest and stored with its index, and the judge
    reads a run's support against it: the same cited reply is given on a book whose answerable
    support it reaches and declined on one whose it does not; the search tool tells the model
    that support too."""
    fake, url = fake_model
    question = "How does a servo hold its position?"
    data = copy_data_dir(motors_template, tmp_path / "data")
    lib = library(data, url)
    try:
        retriever = lib.engine().retriever
        support = retriever.search(question).evidence.support
        calibration = retriever.calibration.model_copy(
            update={"answerable": support + (0.1 if above else -0.1), "confident": support + (0.12 if above else -0.08)}
        )
        retriever.index.add_metadata({"calibration": calibration.model_dump()})
    finally:
        lib.close()
    fake.script = [
        Reply(tool_calls=[("search_book_content", {"query": question})]),
        Reply(text="A servo holds its position with a feedback loop [S1]."),
    ]
    lib = library(data, url)
    try:
        answer, _ = await ask(lib.engine(), question)
    finally:
        lib.close()
    assert (answer.status, answer.confidence) == (status, confidence)
    assert answer.judgment is not None and answer.judgment.features["quotes_covered"] > 0  # its quote was read
    assert f'"answerable": {calibration.answerable}' in fake.tool_results(1)[0]


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("Who won the football match in Lisbon yesterday?", "That question is outside the scope of this book."),
        ("How many steps per revolution does a stepper motor's driver use in microstepping?",
         "I couldn't find this in the book"),
    ],
)
async def test_an_llms_decline_is_graded_with_the_books_calibration(
    motors_data: Path, fake_model, question: str, lead: str
) -> None:
    """Whether a declined question is outside the book's scope (the scope message) or near a
    lesson (that lesson suggested) is decided by the calibration measured on this book at
    ingest, whatever model declined it."""
    fake, url = fake_model
    fake.script = [
        Reply(tool_calls=[("search_book_content", {"query": question})]),
        Reply(text="NOT_IN_BOOK"),
    ]
    lib = library(motors_data, url)
    try:
        calibration = lib.engine().retriever.calibration
        answer, _ = await ask(lib.engine(), question)
    finally:
        lib.close()
    assert calibration.probes >= 30
    assert answer.status == "not_found" and answer.text.startswith(lead)
    assert answer.suggestions  # the book's topics, or the lessons near the question


async def test_an_answer_without_valid_citations_is_not_passed_off_as_found(motors_data: Path, fake_model) -> None:
    fake, url = fake_model
    fake.script = [Reply(text="Servos are powered by tiny hamsters [S7].")]  # no tool call at all
    lib = library(motors_data, url)
    try:
        answer, _ = await ask(lib.engine(), "How does a servo hold its position?")
    finally:
        lib.close()
    assert answer.status == "not_found"
    assert "hamsters" not in answer.text and answer.citations == []


@pytest.mark.parametrize(("status", "rate_limited"), [(429, True), (500, False)])
async def test_model_failures_become_model_unavailable(motors_data: Path, fake_model, status: int, rate_limited: bool) -> None:
    fake, url = fake_model
    fake.fail(status, times=5)
    lib = library(motors_data, url)
    try:
        with pytest.raises(ModelUnavailable) as raised:
            await ask(lib.engine(), "How does a servo hold its position?")
    finally:
        lib.close()
    assert raised.value.rate_limited is rate_limited
    if rate_limited:
        assert raised.value.retry_after == 7


async def test_a_hanging_model_times_out(motors_data: Path, fake_model) -> None:
    fake, url = fake_model
    fake.hang_seconds = 5
    lib = library(motors_data, url, timeout=0.5)
    try:
        with pytest.raises(ModelUnavailable):
            await ask(lib.engine(), "How does a servo hold its position?")
    finally:
        lib.close()
