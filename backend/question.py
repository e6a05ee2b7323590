"""The reader's question: what they typed without markup, the page context it came with, and
how it becomes search queries (a follow-up made standalone, a question that asks several
things split into parts). Retrieval, the agent and grounding all read it from here."""

import html
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from backend.retrieval import lexical
from backend.retrieval.query import Query
from backend.retrieval.sentences import QUESTION_WORD, scene_and_question

# What one question may hold, at every entry point (HTTP, MCP, the console, questionnaires, the
# CLI): the work an answer does grows with these lengths, so none may be unbounded.
MAX_QUESTION = 2000  # a question, or a search query
MAX_SELECTION = 5000
MAX_SURROUNDING = 8000  # the page text around a selection; also an answer in the history
MAX_HISTORY_TURNS = 20
MAX_LESSON_ID = 500


class QuestionTooLong(ValueError):
    """A question, query or selection over its limit (a 400, or the MCP tool's error)."""


def within_limit(text: str, limit: int, what: str) -> str:
    """The text, if it is within `limit` characters (checked before anything reads it)."""
    if len(text) > limit:
        raise QuestionTooLong(f"{what} has {len(text):,} characters; at most {limit:,} are read")
    return text


class Turn(BaseModel):
    role: Literal["user", "assistant"]
    content: str = Field(max_length=MAX_SURROUNDING)

    @model_validator(mode="after")
    def _a_question_is_a_question(self) -> "Turn":
        """A reader's earlier turn was a question: it is searched with the next one."""
        if self.role == "user" and len(self.content) > MAX_QUESTION:
            raise ValueError(f"a reader's turn has at most {MAX_QUESTION:,} characters, as a question does")
        return self


# Markup pasted or typed into a question ("<script>alert('hi')</script> What is URDF?") is not
# part of what the reader asks: elements whose content is code go whole, other tags leave
# their text. A type argument is not a tag: it follows a name ("Array<string>", "useSelector<State>").
_CODE_ELEMENT = re.compile(r"(?<![\w$.])<(script|style)\b[^>]*>.*?(?:</\1\s*>|$)", re.IGNORECASE | re.DOTALL)
_MARKUP = re.compile(
    r"<!--.*?(?:-->|$)|</[A-Za-z][\w:-]*\s*>|(?<![\w$.])<[A-Za-z][\w:-]*(?:\s[^<>]*)?/?>", re.DOTALL
)

_SPACE_BEFORE_PUNCTUATION = re.compile(r"(?<=\w) (?=[?!.,;:](?:\s|$))")  # where a closing tag was


def readable(text: str) -> str:
    """What a reader's text says with HTML markup (and entities) and invisible format characters
    (zero-width spaces and joiners, soft hyphens, byte-order marks) taken out, and its spacing
    made plain. Its lines stay: where a pasted traceback ends and the question begins is a line's end."""
    text = html.unescape(_MARKUP.sub(" ", _CODE_ELEMENT.sub(" ", text)))
    text = "".join(char for char in text if unicodedata.category(char) != "Cf")
    lines = (_SPACE_BEFORE_PUNCTUATION.sub("", " ".join(line.split())) for line in text.splitlines())
    return "\n".join(line for line in lines if line)


class Question(BaseModel):
    """A reader's question with whatever context the page gave it; its text without markup."""

    text: str = Field(max_length=MAX_QUESTION)
    selected_text: str | None = Field(None, max_length=MAX_SELECTION)
    surrounding_text: str | None = Field(None, max_length=MAX_SURROUNDING)
    lesson_id: str | None = Field(None, max_length=MAX_LESSON_ID)
    history: list[Turn] = Field(default_factory=list, max_length=MAX_HISTORY_TURNS)

    @field_validator("text")
    @classmethod
    def _readable(cls, value: str) -> str:
        return readable(value)

    @cached_property
    def asked(self) -> "Asked":
        """What it asks, told from the scene the reader sets: made once, read by all."""
        return analysed(self.text, self.history)


HISTORY_EXCHANGES = 5
MAX_PARTS = 3
# Where one question ends and another begins: "…, and what …", "…, and in X, how …", "…; …",
# "…? How …". A leading "In X, what …" is context for the question, not a question of its own.
_CLAUSES = re.compile(
    rf"\s*(?:[;?]\s*(?:and\s+|but\s+)?|"
    rf",?\s+(?:and|but)\s+"
    rf"(?=(?:[^,?]*,\s*)?(?:(?:at|in|on|for|with|by|from|to)\s+)?{QUESTION_WORD}\b))",
    re.IGNORECASE,
)
# "I want a base template, and flashed messages on every page.": a statement that joins two
# clauses sets two scenes, each its own part (not the last item of a list: see _clauses_of).
_JOINED_STATEMENTS = re.compile(r",\s+and\s+(?:then\s+|also\s+)?", re.IGNORECASE)
LIST_ITEM_WORDS = 3  # "Flask, Jinja, and SQLAlchemy": items of a list are a few words each
# How two topics relate is the question, not a topic: dropped from each topic's own search.
# Connecting relates topics when they connect ("How do X and Y connect?", "the connection
# between X and Y"), not when the reader does it ("How do I connect to the database?", "how to
# connect …") nor in the name of a thing ("the websocket connection object").
_RELATION = re.compile(
    r"\b(?:how (?:do|does|are|is) (?:they|these|those|the two)\b.*|work(?:s|ing)? together|"
    r"interact\w*|relat\w*|(?<!\bi )(?<!\byou )(?<!\bwe )(?<!\bone )(?<!\bto )connect(?:s|ed|ing)?\b|"
    r"connections? between|"
    r"combin\w*|(?:differ|compar)\w*(?:\s+(?:between|of))?|rather than|instead of)",
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


def standalone_query(question: str | Query, history: Sequence[Turn]) -> Query:
    """The question leaning on the most recent earlier question, when it leans on it (a
    pronoun, or too few words of its own); on that one's own earlier question too, when it
    leaned on it in turn ("Does the humanoid config use a special tree for it?")."""
    query = question if isinstance(question, Query) else Query(question)
    context: list[str] = []
    leans = refers_back(query.text)
    for turn in reversed(history[-2 * HISTORY_EXCHANGES :]):
        if not leans:
            break
        if turn.role == "user" and lexical.terms(turn.content):
            context.insert(0, turn.content.strip())
            leans = _REFERS_BACK.search(turn.content) is not None
    return query.leaning_on(" ".join(context))


# A block the reader pasted between fences, as chat and issue trackers take code, a traceback,
# a log or a configuration ("```python" … "```"); a fence left open runs to the end.
_FENCED = re.compile(r"^(`{3,}|~{3,})[^\n]*\n?(.*?)(?:^\1[ \t]*(?:\n|\Z)|\Z)", re.MULTILINE | re.DOTALL)


def pasted_and_written(text: str) -> tuple[tuple[str, ...], str]:
    """What the reader pasted between fences, each block, and the rest: what they wrote. Text
    that is all pasted is what they wrote."""
    pasted = tuple(block.strip() for block in (m.group(2) for m in _FENCED.finditer(text)) if block.strip())
    written = "\n".join(line for line in _FENCED.sub("", text).splitlines() if line.strip())
    return (pasted, written) if written else ((), "\n".join(pasted) or text)


@dataclass(frozen=True)
class Asked:
    """What a reader asks, told once from the scene their statements set (`Question.asked`),
    then read by the answer model, the grounding and the judge."""

    ask: str  # what is asked: the question after the statements that set the scene
    scenes: tuple[str, ...]  # what their statements set ("Our robot runs Kubernetes."), a clause each
    relates: bool  # the ask is how topics relate ("How do X and Y work together?")
    query: Query  # the whole question as searched: with the earlier question it leans on
    parts: dict[str, Query]  # each part of a question that asks several things → its search query

    @property
    def pasted(self) -> tuple[str, ...]:
        """What they pasted between fences: code, error output, a log, a configuration."""
        return self.query.pasted


def analysed(text: str, history: Sequence[Turn] = ()) -> Asked:
    """The question's ask, scenes, what was pasted and its parts. In "…, and what goes wrong if
    you set it too high?", "it" is the first part's subject. What was pasted is searched with
    the question but neither says what it asks nor makes a part of its own."""
    pasted, written = pasted_and_written(text)
    statements, ask = scene_and_question(written)
    scenes = tuple(
        scene for statement in statements for piece in _clauses_of(statement) if (scene := piece.strip(" ."))
    )
    relates = bool(_RELATION.search(ask))
    parts = _parts(ask, scenes, relates)
    queries = {}
    for i, part in enumerate(parts):
        query = Query(part).leaning_on(parts[0]) if i and refers_back(part) else Query(part)
        queries[part] = standalone_query(query, history)
    return Asked(ask, scenes, relates, standalone_query(Query(written, pasted=pasted), history), queries)


def _parts(ask: str, scenes: tuple[str, ...], relates: bool) -> list[str]:
    """What a question asks, one part each, when it asks several things: the topics it relates
    ("How do X and Y work together?") or its clauses ("What is X, and how does it Y?"); [] when
    it asks one thing. A clause needs two words of its own to be searched alone (a topic, one:
    "LiDAR"); shorter ones are left to the whole question."""
    clauses: list[str] = []
    for clause in filter(None, _CLAUSES.split(ask)):
        if relates:
            topics = [" ".join(_RELATION.sub(" ", t).split()).strip(" ?.,;")
                      for t in _TOPICS.split(clause)]
            clauses += [t for t in topics if lexical.terms(t, compounds=False)]
        elif len(set(lexical.terms(clause, compounds=False))) >= 2:
            clauses.append(clause.strip(" ?.,;"))
    # The scenes first (a later clause's "it" is often theirs), as many as leave room for
    # what is asked.
    room = max(MAX_PARTS - len(clauses), 0)
    settings = [scene for scene in scenes if len(set(lexical.terms(scene, compounds=False))) >= 2]
    parts = [*settings[:room], *clauses][:MAX_PARTS]
    return parts if len(parts) > 1 else []


def _clauses_of(statement: str) -> list[str]:
    """The statement cut where ", and" joins two clauses; where it ends a list ("My app uses
    Flask, Jinja, and SQLAlchemy"), the words before it since the last comma are an item."""
    pieces: list[str] = []
    start = 0
    for joint in _JOINED_STATEMENTS.finditer(statement):
        before = statement[start : joint.start()]
        last_item = before.rsplit(",", 1)
        if len(last_item) == 2 and len(last_item[1].split()) <= LIST_ITEM_WORDS:
            continue
        pieces.append(before)
        start = joint.end()
    return [*pieces, statement[start:]]


def leaning_on_the_first(parts: dict[str, Query]) -> dict[Query, Query]:
    """Each later part's query that does not lean on the first part → the same leaning on it,
    searched when the part alone finds too little: a part may leave its subject to the first
    without a pronoun ("What would an fstab line look like …, and what do the two numbers at the
    end of the line mean?"). Only then, since a part that is found alone is often about another
    lesson, which leaning would trade for the first part's."""
    first, *later = parts
    return {
        parts[part]: parts[part].leaning_on(first)
        for part in later
        if first not in parts[part].context
    }
