"""How a reader's question becomes search queries: a follow-up ("what is its range?") is made
standalone, and a question that asks several things is split into parts searched one by one."""

import re
from typing import Literal

from backend.agent.context import Question, Turn
from backend.retrieval import lexical

HISTORY_EXCHANGES = 5
MAX_PARTS = 3
_QUESTION_WORD = (
    r"(?:what|how|which|why|when|where|who|whom|whose|is|are|was|were|does|do|did|can|could|"
    r"should|would|will|has|have)"
)
# Where one question ends and another begins: "…, and what …", "…, and in X, how …", "…; …",
# "…? How …". A leading "In X, what …" is context for the question, not a question of its own.
_CLAUSES = re.compile(
    rf"\s*(?:[;?]\s*(?:and\s+|but\s+)?|"
    rf",?\s+(?:and|but)\s+"
    rf"(?=(?:[^,?]*,\s*)?(?:(?:at|in|on|for|with|by|from|to)\s+)?{_QUESTION_WORD}\b))",
    re.IGNORECASE,
)
# "The driver remaps imu. What type is sent?": statements that set the scene for the question.
_STATEMENT_END = re.compile(rf"(?<=\.)\s+(?={_QUESTION_WORD}\b)", re.IGNORECASE)
# How two topics relate is the question, not a topic: dropped from each topic's own search.
_RELATION = re.compile(
    r"\b(?:how (?:do|does|are|is) (?:they|these|those|the two)\b.*|work(?:s|ing)? together|"
    r"interact\w*|relat\w*|connect\w*|combin\w*|(?:differ|compar)\w*(?:\s+(?:between|of))?|"
    r"rather than|instead of)",
    re.IGNORECASE,
)
_TOPICS = re.compile(
    r",?\s+\b(?:and|vs\.?|versus|compared (?:to|with)|relate[sd]? to|together with|with|"
    r"rather than|instead of)\b\s+",
    re.IGNORECASE,
)
_REFERS_BACK = re.compile(
    r"\b(it|its|it's|itself|that|this|these|those|they|them|their|there|he|she|his|her|one)\b",
    re.IGNORECASE,
)


# Questions about the text itself ("What does this book cover?", "Key ideas of this page?") are
# made of words that describe documents, whatever the book is about.
_PAGE_WORDS = frozenset(lexical.terms("page lesson chapter section article", compounds=False))
_BOOK_WORDS = frozenset(lexical.terms("book guide documentation docs site course module manual", compounds=False))
_ABOUT_WORDS = frozenset(lexical.terms(
    "cover covered topics key main ideas points summary summarize summarise overview learn teach "
    "takeaways content contains important concepts gist whole entire", compounds=False
))


def asks_about_the_text(question: Question) -> Literal["book", "page"] | None:
    """"book" for a question about the whole book, "page" for one about the page being read,
    None for a question about the book's subject matter, a selection or an earlier answer."""
    if question.selected_text or question.history:
        return None
    words = set(lexical.terms(question.text, compounds=False))
    if not words or not words <= _PAGE_WORDS | _BOOK_WORDS | _ABOUT_WORDS:
        return None
    if words & _PAGE_WORDS:
        return "page"
    return "book" if words & _BOOK_WORDS else None


def refers_back(question: str) -> bool:
    return bool(_REFERS_BACK.search(question)) or len(lexical.terms(question)) <= 1


def standalone_query(question: str, history: list[Turn]) -> str:
    """The question plus the most recent earlier question, when the question leans on it
    (a pronoun, or too few words of its own); that one's own earlier question too, when it
    leaned on it in turn ("Does the humanoid config use a special tree for it?")."""
    context: list[str] = []
    leans = refers_back(question)
    for turn in reversed(history[-2 * HISTORY_EXCHANGES :]):
        if not leans:
            break
        if turn.role == "user" and lexical.terms(turn.content):
            context.insert(0, turn.content.strip())
            leans = _REFERS_BACK.search(turn.content) is not None
    return lexical.with_context(question, " ".join(context)) if context else question


def question_parts(question: str) -> list[str]:
    """What a question asks, one part each, when it asks several things: the topics it relates
    ("How do X and Y work together?") or its clauses ("What is X, and how does it Y?"); [] when
    it asks one thing. A clause needs two words of its own to be searched alone (a topic, one:
    "LiDAR"); shorter ones are left to the whole question."""
    *statements, asked = _STATEMENT_END.split(question)
    parts = [s.strip(" .") for s in statements if len(set(lexical.terms(s, compounds=False))) >= 2]
    relates = bool(_RELATION.search(asked))  # "…, and how do they connect?" relates earlier topics
    for clause in filter(None, _CLAUSES.split(asked)):
        if relates:
            topics = [" ".join(_RELATION.sub(" ", t).split()).strip(" ?.,;")
                      for t in _TOPICS.split(clause)]
            parts += [t for t in topics if lexical.terms(t, compounds=False)]
        elif len(set(lexical.terms(clause, compounds=False))) >= 2:
            parts.append(clause.strip(" ?.,;"))
    return parts[:MAX_PARTS] if len(parts) > 1 else []


def part_queries(question: str, history: list[Turn]) -> dict[str, str]:
    """Each part of the question → its standalone search query. In "…, and what goes wrong if
    you set it too high?", "it" is the first part's subject."""
    parts = question_parts(question)
    queries = {}
    for i, part in enumerate(parts):
        query = lexical.with_context(part, parts[0]) if i and refers_back(part) else part
        queries[part] = standalone_query(query, history)
    return queries
