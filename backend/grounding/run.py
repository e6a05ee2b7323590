"""What one answer run knows: the reader's question and the passages its tools retrieved.
The agent's tools fill it in; grounding reads it to check citations and grade the answer."""

from dataclasses import dataclass, field

from backend.question import Question
from backend.retrieval.index import ScoredChunk
from backend.retrieval.query import Query
from backend.retrieval.search import Evidence, Retriever


@dataclass
class RunState:
    question: Question
    retriever: Retriever
    top_k: int = 6
    sources: dict[str, ScoredChunk] = field(default_factory=dict)  # ref ("S1") → passage
    evidence: Evidence = field(default_factory=Evidence)  # the strongest seen in this run
    searched: dict[Query, float] = field(default_factory=dict)  # query → support it found

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
