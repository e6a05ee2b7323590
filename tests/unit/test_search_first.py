"""benchmarks/search_first.py: how often the search's first passage is a gold one."""

from pathlib import Path

from backend.evaluation import EvalQuestion, Gold
from benchmarks.search_first import first_hit_rate
from tests.support.books import library_of

BOOK = {
    "brakes.md": "# Brakes\n\nThe emergency stop cuts motor power at once when the red button is pressed.\n",
    "wheels.md": "# Wheels\n\nThe robot rolls on four rubber wheels, each driven by its own motor.\n",
}


def question(text: str, file: str, kind: str = "answerable") -> EvalQuestion:
    return EvalQuestion(id=text, kind=kind, question=text, gold=[Gold(file=file)] if file else [])


def test_the_rate_counts_questions_whose_first_passage_is_gold(tmp_path: Path) -> None:
    with library_of(tmp_path, BOOK, "robot") as library:
        retriever = library.engine("robot").retriever
        right = [question("What does the red button do?", "brakes.md"),
                 question("What do the wheels roll on?", "wheels.md")]
        assert first_hit_rate(retriever, right) == 1.0
        wrong_gold = [question("What does the red button do?", "wheels.md")]
        assert first_hit_rate(retriever, right + wrong_gold) == round(2 / 3, 3)
        # a question the book does not answer is not counted
        assert first_hit_rate(retriever, right + [question("Who painted it?", "", "unanswerable")]) == 1.0
