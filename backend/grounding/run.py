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
    evidence_query: Query | None = None  # the search that found it
    searched: dict[Query, Evidence] = field(default_factory=dict)  # query → the most it found
    cosine: dict[str, float] = field(default_factory=dict)  # passage → its best cosine to a search

    def register(self, hit: ScoredChunk) -> str:
        """The run-wide ref of a passage; the same passage keeps its first ref and its best
        score (searches run at once finish in any order)."""
        for ref, known in self.sources.items():
            if known.chunk.id == hit.chunk.id:
                if hit.score > known.score:
                    self.sources[ref] = hit
                return ref
        ref = f"S{len(self.sources) + 1}"
        self.sources[ref] = hit
        return ref

    def weigh(self, query: Query, evidence: Evidence) -> None:
        """Keeps the strongest evidence of the run's searches, the same whichever finishes
        first: the one furthest above the level it is judged by (lower for a search that found
        one page), then the strongest; of two as strong, the one whose query (text, then
        context) sorts first. And for each query the strongest it found (a query searched
        twice, in a module and in the book)."""
        for chunk_id, cosine in evidence.cosine.items():
            self.cosine[chunk_id] = max(cosine, self.cosine.get(chunk_id, -1.0))
        if query not in self.searched or self._rank(evidence) < self._rank(self.searched[query]):
            self.searched[query] = evidence
        best = self.evidence_query
        if best is None or (self._rank(evidence), query.text, query.context) < (
            self._rank(self.evidence), best.text, best.context
        ):
            self.evidence, self.evidence_query = evidence, query

    def _rank(self, evidence: Evidence) -> tuple[float, float, bool, float]:
        """Stronger evidence sorts first."""
        above = evidence.support - self.retriever.calibration.answerable_for(evidence.one_page)
        return -above, -evidence.support, not evidence.one_page, -evidence.topical

    def ref_of(self, chunk_id: str) -> str | None:
        return next((r for r, h in self.sources.items() if h.chunk.id == chunk_id), None)
