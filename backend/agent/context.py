"""What one answer run knows: the reader's request and the passages its tools retrieved."""

import html
import re
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from backend.retrieval.index import ScoredChunk
from backend.retrieval.search import Evidence, Retriever


class Turn(BaseModel):
    role: Literal["user", "assistant"]
    content: str = Field(max_length=8000)


# Markup pasted or typed into a question ("<script>alert('hi')</script> What is URDF?") is not
# part of what the reader asks: elements whose content is code go whole, other tags leave
# their text. A type argument is not a tag: it follows a name ("Array<string>", "useSelector<State>").
_CODE_ELEMENT = re.compile(r"(?<![\w$.])<(script|style)\b[^>]*>.*?(?:</\1\s*>|$)", re.IGNORECASE | re.DOTALL)
_MARKUP = re.compile(
    r"<!--.*?(?:-->|$)|</[A-Za-z][\w:-]*\s*>|(?<![\w$.])<[A-Za-z][\w:-]*(?:\s[^<>]*)?/?>", re.DOTALL
)

_SPACE_BEFORE_PUNCTUATION = re.compile(r"(?<=\w) (?=[?!.,;:](?:\s|$))")  # where a closing tag was


def readable(text: str) -> str:
    """What a reader's text says with HTML markup (and entities) taken out."""
    text = _MARKUP.sub(" ", _CODE_ELEMENT.sub(" ", text))
    return _SPACE_BEFORE_PUNCTUATION.sub("", " ".join(html.unescape(text).split()))


class Question(BaseModel):
    """A reader's question with whatever context the page gave it; its text without markup."""

    text: str
    selected_text: str | None = None
    surrounding_text: str | None = None
    lesson_id: str | None = None
    history: list[Turn] = Field(default_factory=list)

    @field_validator("text")
    @classmethod
    def _readable(cls, value: str) -> str:
        return readable(value)


@dataclass
class RunState:
    question: Question
    retriever: Retriever
    top_k: int = 6
    sources: dict[str, ScoredChunk] = field(default_factory=dict)  # ref ("S1") → passage
    evidence: Evidence = field(default_factory=Evidence)  # the strongest seen in this run
    searched: dict[str, float] = field(default_factory=dict)  # query → support it found

    def register(self, hit: ScoredChunk) -> str:
        """The run-wide ref of a passage; the same passage keeps its first ref."""
        for ref, known in self.sources.items():
            if known.chunk.id == hit.chunk.id:
                return ref
        ref = f"S{len(self.sources) + 1}"
        self.sources[ref] = hit
        return ref

    def ref_of(self, chunk_id: str) -> str | None:
        return next((r for r, h in self.sources.items() if h.chunk.id == chunk_id), None)
