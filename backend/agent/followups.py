"""Follow-up questions ("what is its range?") rewritten into standalone searches."""

import re

from backend.agent.context import Turn
from backend.retrieval import lexical

HISTORY_EXCHANGES = 5
MAX_PARTS = 3
# How the topics relate is the question, not a topic: dropped from each topic's own search.
_RELATION = re.compile(
    r"\b(?:how (?:do|does|are|is) (?:they|these|those|the two)\b.*|work(?:s|ing)? together|"
    r"interact\w*|relat\w*|connect\w*|combin\w*|differ\w*|compar\w*)", re.IGNORECASE
)
_JOINS = re.compile(
    r",?\s+\b(?:and|vs\.?|versus|compared (?:to|with)|relate[sd]? to|together with|with)\b\s+",
    re.IGNORECASE,
)
_REFERS_BACK = re.compile(
    r"\b(it|its|it's|itself|that|this|these|those|they|them|their|there|he|she|his|her|one)\b",
    re.IGNORECASE,
)


def refers_back(question: str) -> bool:
    return bool(_REFERS_BACK.search(question)) or len(lexical.terms(question)) <= 1


def standalone_query(question: str, history: list[Turn]) -> str:
    """The question plus the subject of the most recent earlier question, when the question
    leans on it (a pronoun, or too few words of its own)."""
    if not refers_back(question):
        return question
    recent = history[-2 * HISTORY_EXCHANGES :]
    for turn in reversed(recent):
        if turn.role == "user" and lexical.terms(turn.content):
            return f"{question} ({turn.content.strip()})"
    return question


def topic_parts(question: str) -> list[str]:
    """The topics a question joins ("How do URDF and Isaac Sim work together?" → "URDF",
    "Isaac Sim work together"), so each can be searched on its own; [] for one topic."""
    parts = [_RELATION.sub(" ", p).strip(" ?.,") for p in _JOINS.split(question)]
    parts = [p for p in parts if len(set(lexical.terms(p, compounds=False))) >= 2]
    return parts[:MAX_PARTS] if len(parts) > 1 else []
