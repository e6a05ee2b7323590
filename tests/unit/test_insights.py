"""Content gaps on Lectern's own user guide, with the packaged embedding model: the questions of
a gap ask one thing, and questions far from the book are listed apart."""

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from backend.config import Settings
from backend.engine import Library
from backend.insights import GapFinder, Gaps, TopicLevels
from tests.support.books import SAMPLE_BOOK, ingest_into

NOTION = ["Can Lectern index our Notion workspace?", "Does Lectern work with Notion pages?"]
SLACK = ["Can I use Lectern from Slack?", "Is there a Slack bot for Lectern?"]
OFF_TOPIC = "What is the boiling point of mercury?"


@pytest.fixture(scope="module")
def guide(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    data = tmp_path_factory.mktemp("guide")
    ingest_into(data, SAMPLE_BOOK, "guide")
    library = Library(Settings(LECTERN_DATA_DIR=data, LECTERN_BOOK="guide"))
    yield library
    library.close()


def gaps_of(library: Library, questions: list[str]) -> Gaps:
    finder = GapFinder(TopicLevels(library.engine("guide").retriever, library.embedder))
    asked = [{"question": question, "times": 1, "why": "not answered"} for question in questions]
    return asyncio.run(finder.gaps("guide", datetime.now(UTC), asked))


def test_a_gap_holds_one_need_in_other_words_and_not_another(guide: Library) -> None:
    """Every question here names the book, which made all of them one gap before."""
    found = gaps_of(guide, [*NOTION, *SLACK])
    groups = sorted(sorted(q.question for q in gap.questions) for gap in found.gaps)
    assert groups == sorted([sorted(NOTION), sorted(SLACK)])
    assert all(gap.closest_lessons for gap in found.gaps)


def test_an_off_topic_question_is_listed_apart(guide: Library) -> None:
    found = gaps_of(guide, [*NOTION, OFF_TOPIC])
    assert [q.question for q in found.off_topic] == [OFF_TOPIC]
    assert OFF_TOPIC not in {q.question for gap in found.gaps for q in gap.questions}
    assert [sorted(q.question for q in gap.questions) for gap in found.gaps] == [sorted(NOTION)]
