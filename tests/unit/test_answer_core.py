"""benchmarks/answer_core.py: the count of regular expressions and numeric knobs."""

from benchmarks.answer_core import Rules, rules_in

SOURCE = '''
import re

WINDOW = 2
NEAR_BEST = 0.8
FLOOR = -1.5
NAME = "offline"  # not a number
_QUESTION = re.compile(r"\\?$")


class Ranker:
    BONUS: float = 0.15
    def rank(self, text: str, word: str) -> bool:
        local = 3  # not a knob: a local name
        return bool(re.search(r"\\d+", text) or re.search(word, text) or re.sub(f"{word}s", "", text))
'''


def test_patterns_and_capitalised_numeric_constants_are_counted() -> None:
    # re.search(word, …) passes a pattern made elsewhere: not a pattern of its own
    assert rules_in(SOURCE) == Rules(regular_expressions=3, numeric_knobs=4)
