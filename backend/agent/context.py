"""What one answer run knows: the reader's request and the passages its tools retrieved."""

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from backend.retrieval.index import ScoredChunk
from backend.retrieval.search import Evidence, Retriever


class Turn(BaseModel):
    role: Literal["user", "assistant"]
    content: str = Field(max_length=8000)


class Question(BaseModel):
    """A reader's question with whatever context the page gave it."""

    text: str
    selected_text: str | None = None
    surrounding_text: str | None = None
    lesson_id: str | None = None
    history: list[Turn] = Field(default_factory=list)


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
