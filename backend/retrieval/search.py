"""Hybrid retrieval over one book: dense + BM25 fused by reciprocal rank, near-duplicates dropped,
full lessons preferred over summaries, and the evidence the grounding step needs to decide
whether the book answers the question at all.

Evidence is measured on sentence windows of the best passages, in units that mean the same for
every embedding model:
- lexical: the IDF-weighted share of the question's terms that one window contains, read in
  its passage (terms only its heading, other sentences or code examples use count a quarter;
  words only of the query's context, "What is a ToF camera?" for "What is its range?", count
  as contained when the passage has them: they name the subject, the window answers);
- semantic: the cosine similarity of the window's passage to the question, rescaled so that 0
  is the question's average similarity to the rest of the book and 1 a perfect match
  ((cos − mean) / (1 − mean)); of a passage longer than the embedding model reads, that of
  the part of it the model read the window in (`BookCorpus.read_in_parts`); it uses the
  vectors stored at ingest, so it costs no embedding.
`support` is their geometric mean (both must hold: see sentences.Window.support);
grounding/status.py turns it into an answer status. A change to how support is scored changes
what a book's calibration measures: bump calibration.METHOD.
"""

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import takewhile
from typing import Literal

import numpy as np

from backend.metrics import RETRIEVAL_LATENCY
from backend.retrieval import lexical
from backend.retrieval.calibration import METHOD, Calibration, Probe, calibrate
from backend.retrieval.embeddings import Embedder
from backend.retrieval.index import BookIndex, ScoredChunk
from backend.retrieval.models import Chunk, Page
from backend.retrieval.query import Query
from backend.retrieval.rerank import CohereReranker
from backend.retrieval.sentences import (
    ANSWER_TYPE_BONUS,
    CANNOT_ANSWER,
    WINDOW,
    Sentence,
    Window,
    initialisms,
    initials,
    rank_windows,
    scene_and_question,
    split_sentences,
    states_without_way,
)

RetrievalMode = Literal["hybrid", "dense", "lexical"]
CANDIDATES = 40
RRF_K = 60
KIND_PRIOR = {"lesson": 1.0, "index": 0.9, "quiz": 0.85, "summary": 0.8}
DUPLICATE_OVERLAP = 0.7
SECTION_HITS = 3  # best passages read with the rest of their section
EVIDENCE_PASSAGES = 11  # passages whose sentences are weighed as evidence
EVIDENCE_WINDOWS = 6  # best windows kept as evidence (and offered as key sentences)
# A search "finds one page" when this many of its best passages all come from it (as many as
# a search returns by default; the calibration's probes are measured the same way).
ONE_PAGE_PASSAGES = 6
# A window is read in its passage: words of the question that its section heading, the rest
# of the passage or its code examples use count for a quarter.
PASSAGE_CONTEXT = 0.25
# A window's fit gains up to this much from its passage's search rank (the first passage all of
# it, the last none): about what int8 rounding moves a fit by (the local model's int8 vectors
# are 0.99 alike to its full-precision ones), so it orders windows that close and no others.
SEARCH_RANK_PRIOR = 0.01
_CODE_COMMENT = re.compile(r"\s(?:#|//)\s")  # where a line of an example turns to a comment
PASTED_RUN = 3  # words in a row a question shares with a line of an example before it is theirs
SELECTION_MATCH = 0.6  # share of a selection's words a passage must hold to be its source
TERM_SETS = 4096  # passages whose term sets are kept made (searches read the same ones again)


@dataclass
class Evidence:
    support: float = 0.0
    topical: float = 0.0  # the best passage's semantic score: how near the book comes at all
    windows: list[Window] = field(default_factory=list)  # best answer first
    unmentioned: list[str] = field(default_factory=list)  # names asked about the book never uses
    # The search's best passages all come from one page, and so does its best window: the book
    # has a page about the question (its support is judged as calibration.py says).
    one_page: bool = False
    similarity: dict[str, float] = field(default_factory=dict)  # passage read → its semantic score
    cosine: dict[str, float] = field(default_factory=dict)  # passage read → its cosine similarity
    # The best passage's cosine similarity: how near the book comes, as the embedding model says
    nearest: float = 0.0
    # The best window's support before the checks of what the question asks for (a value of the
    # asked kind, a way for a how-to, a name the book uses) found no window able to answer it.
    measured: float = 0.0


@dataclass
class SearchResult:
    hits: list[ScoredChunk]
    evidence: Evidence


class BookCorpus:
    """All chunks of the served collection, in memory: BM25 postings and document frequencies,
    dense vectors for ranking and calibration, neighbours for selections, pages for lesson metadata.
    Reloaded when the alias moves to a new build."""

    def __init__(self, index: BookIndex):
        self.collection = index.current_collection() or ""
        self.chunks, self.vectors, stored_terms, parts = index.chunks_with_vectors()
        self.postings = lexical.Postings(
            stored.split() if stored is not None else lexical.terms(chunk.embedding_text)  # an older build
            for chunk, stored in zip(self.chunks, stored_terms, strict=True)
        )
        norms = np.linalg.norm(self.vectors, axis=1, keepdims=True)
        self.vectors /= np.where(norms == 0, 1, norms)
        self.row = {chunk.id: i for i, chunk in enumerate(self.chunks)}
        # A passage the embedding model read in parts, by row: their unit vectors and spans.
        self.parts = {row: stored for row, stored in enumerate(parts) if stored is not None}
        for stored in self.parts.values():
            stored.vectors /= np.maximum(np.linalg.norm(stored.vectors, axis=1, keepdims=True), 1e-12)
        self.part_terms: Callable[[int], list[frozenset[str]]] = lru_cache(maxsize=TERM_SETS)(self._part_terms)
        self.pages = index.pages()
        # A passage's terms as a set, made when a search reads it (a set for every passage of a
        # big book would take more memory than its text).
        self.terms_of: Callable[[str], frozenset[str]] = lru_cache(maxsize=TERM_SETS)(self._terms_of)
        self.df = self.postings.df
        # The book's name heads every passage: where every passage holds its terms, they say
        # nothing of which passage answers, to the embedding model as to BM25 (idf ~ 0). Not in
        # a book of one page, whose every passage holds whatever that page is about.
        several_pages = len({chunk.source_path for chunk in self.chunks}) > 1
        named = lexical.terms(index.book, compounds=False) if several_pages else []
        self.everywhere = frozenset(term for term in named if self.df.get(term) == len(self.chunks))
        # Every acronym the book writes out somewhere: one pass over the text at load, instead
        # of one for each question that names an acronym the book does not use.
        self.spelled_out = frozenset().union(*(initialisms(chunk.text) for chunk in self.chunks))
        self.written_as_words = lru_cache(maxsize=1024)(self._written_as_words)
        self._heading_terms: dict[str, frozenset[str]] = {}
        self._by_page: dict[str, list[Chunk]] = {}
        for chunk in self.chunks:
            self._by_page.setdefault(chunk.source_path, []).append(chunk)

    def _terms_of(self, chunk_id: str) -> frozenset[str]:
        row = self.row.get(chunk_id)
        return self.postings.terms_of(row) if row is not None else frozenset()

    def _part_terms(self, row: int) -> list[frozenset[str]]:
        text = self.chunks[row].text
        return [frozenset(lexical.terms(text[start:end], compounds=False)) for start, end in self.parts[row].spans]

    def read_in_parts(self, row: int, query_unit: np.ndarray, others: float) -> list[tuple[frozenset[str], float]]:
        """For a passage the model read in parts (else []): each part's terms and its semantic
        score, measured against the rest of the book (`others`, the passage's) as its passage's
        is (`semantic_scores`)."""
        if row not in self.parts:
            return []
        scores = self.rescaled(self.parts[row].vectors @ query_unit, others)
        return list(zip(self.part_terms(row), scores.tolist(), strict=True))

    def idf(self, term: str) -> float:
        return self.postings.idf(term)

    def overlap(self, first_id: str, second_id: str) -> float:
        """Jaccard overlap of two chunks' terms (near-duplicates score close to 1)."""
        first, second = self.terms_of(first_id), self.terms_of(second_id)
        return len(first & second) / max(len(first | second), 1)

    def _terms_of_heading(self, chunk: Chunk) -> frozenset[str]:
        heading = self._heading_terms.get(chunk.heading)
        if heading is None:
            heading = self._heading_terms[chunk.heading] = frozenset(lexical.terms(chunk.heading, compounds=False))
        return heading

    def heading_asks(self, chunk: Chunk, question_terms: frozenset[str]) -> bool:
        """Whether the chunk's heading is a question ("Why isn't my component re-rendering?")
        that is the reader's: more than half of its words (IDF-weighted) are the question's and
        more than half of the question's are its. "What Is Isaac ROS?" is not the question "Do
        I need an NVIDIA GPU to run Isaac ROS?": it holds few of that question's words."""
        if not chunk.heading.rstrip().endswith("?"):
            return False
        heading = self._terms_of_heading(chunk)
        return min(
            lexical.weighted_share(heading, question_terms, self.idf),
            lexical.weighted_share(question_terms, heading, self.idf),
        ) > 0.5

    def distinctive(self, text: str) -> str:
        """The text without the book's name where every passage holds it, as the embedding model
        reads a query: "What does Lectern store about me?" in the book `lectern-guide` is about
        storing, not about Lectern. The text as it is when nothing else is left ("What is Redux?"
        in the Redux docs)."""
        if not self.everywhere:
            return text
        words = [(word, lexical.terms(word, compounds=False)) for word in text.split()]
        kept = [(word, terms) for word, terms in words if not terms or not set(terms) <= self.everywhere]
        return " ".join(word for word, _ in kept) if any(terms for _, terms in kept) else text

    def rank_lexical(self, query: str, limit: int, inside: np.ndarray) -> list[tuple[str, float]]:
        """(chunk id, BM25 score) of the best `limit` chunks among those `inside` (in_scope)."""
        scores, matched = self.postings.scores(lexical.terms(query))
        return self._best(scores, matched & inside, limit)

    def rank_dense(self, cosines: np.ndarray, limit: int, inside: np.ndarray) -> list[tuple[str, float]]:
        """(chunk id, cosine similarity) of the best `limit` chunks among those `inside`, from
        every passage's `cosines` to the question."""
        return self._best(cosines, inside, limit)

    def in_scope(self, scope: dict[str, str]) -> np.ndarray:
        """Which chunks a search limited to `scope` (field → value) may return."""
        inside = np.ones(len(self.chunks), dtype=bool)
        for field_name, value in scope.items():
            inside &= np.array([getattr(chunk, field_name) == value for chunk in self.chunks], dtype=bool)
        return inside

    def _best(self, scores: np.ndarray, rows_allowed: np.ndarray, limit: int) -> list[tuple[str, float]]:
        rows = np.flatnonzero(rows_allowed)
        if len(rows) > limit:  # sorting only the best (and their ties) keeps big books fast
            rows = rows[scores[rows] >= np.partition(scores[rows], len(rows) - limit)[len(rows) - limit]]
        best = rows[np.argsort(-scores[rows], kind="stable")[:limit]]
        return [(self.chunks[row].id, float(scores[row])) for row in best]

    def unmentioned(self, text: str) -> list[str]:
        """Names in the text (acronyms, CamelCase, identifiers) the book does not use, neither
        whole nor as their words (see _written_as_words: "Isaac Sim" for IsaacSim; PyInstaller
        is not in a book that writes "py" and "installer" apart), nor spelled out ("Inertial
        Measurement Unit" for IMU)."""
        return [
            name for name, terms in lexical.names(text).items()
            if not self.uses_whole(name)
            and not self.written_as_words(name, tuple(terms))
            and not (_acronym(name) and initials(name) in self.spelled_out)
        ]

    def uses_whole(self, name: str) -> bool:
        """Whether some passage uses the name as one word ("cuVSLAM", `wal_compression_level`)."""
        return bool(self.df.get((lexical.terms(name) or [""])[0]))

    def _written_as_words(self, name: str, terms: tuple[str, ...]) -> bool:
        """Whether the book uses all of the name's terms and, for a name of capitalised words
        (a product's or a class's: PyInstaller, Flask-Login), writes them one after the other
        in some passage, apart by nothing but a space, a hyphen, a dot or an underscore. A
        reader's own identifiers (myAsyncThunk, bad_value) and compounds (Internet-facing) are
        the book's words put together anew: using them is enough."""
        if not all(self.df.get(term) for term in terms):
            return False
        words = lexical.name_words(name)
        if len(words) < 2 or not all(word[0].isupper() for word in words if word.isalpha()):
            return True
        in_a_row = re.compile(r"(?<![A-Za-z0-9])" + r"[\s._-]*".join(map(re.escape, words)), re.IGNORECASE)
        using_all = np.flatnonzero(self.postings.counts(terms) == len(set(terms)))
        return any(in_a_row.search(self.chunks[row].text) for row in using_all)

    def cosines(self, query_vector: np.ndarray) -> np.ndarray:
        """Every passage's cosine similarity to the question."""
        return (self.vectors @ _unit(query_vector)).astype(np.float64)

    @staticmethod
    def semantic_scores(cosines: np.ndarray) -> np.ndarray:
        """Every passage's cosine similarity to the question, rescaled so that 0 is the
        question's average similarity to the rest of the book and 1 a perfect match (floored
        at 0). The rest, not the whole: in a book of a few passages the passage measured would
        weigh in the very average it is measured against. A book of one passage has nothing
        to compare with: its score is the cosine."""
        return BookCorpus.rescaled(cosines, BookCorpus.others(cosines))

    @staticmethod
    def others(cosines: np.ndarray) -> np.ndarray:
        """For each passage, the question's average similarity to the rest of the book (0 in a
        book of one passage)."""
        if len(cosines) < 2:
            return np.zeros(len(cosines))
        return (cosines.sum() - cosines) / (len(cosines) - 1)

    @staticmethod
    def rescaled(cosines: np.ndarray, others: np.ndarray | float) -> np.ndarray:
        """Cosines rescaled against `others` (`semantic_scores`)."""
        return np.maximum(0.0, (cosines - others) / np.maximum(1 - others, 1e-9))

    def page_chunks(self, source_path: str) -> list[Chunk]:
        return self._by_page.get(source_path, [])

    def neighbours(self, chunk: Chunk, radius: int = 1) -> list[Chunk]:
        siblings = self.page_chunks(chunk.source_path)
        return [c for c in siblings if abs(c.position - chunk.position) <= radius]

    def next_in_section(self, chunk: Chunk) -> Chunk | None:
        """The passage that follows `chunk` in its section, if the section goes on."""
        return next(
            (
                c for c in self.neighbours(chunk)
                if c.position == chunk.position + 1 and (c.section, c.anchor) == (chunk.section, chunk.anchor)
            ),
            None,
        )

    def find_page(self, key: str) -> Page | None:
        """A page by doc id, source path, or URL (what the widget knows about the page)."""
        key = key.strip().rstrip("/")
        for page in self.pages:
            path = page.url.split("://", 1)[-1]
            path = "/" + path.split("/", 1)[1] if "://" in page.url and "/" in path else path
            if key and key in (page.lesson_id, page.source_path, page.url.rstrip("/"), path.rstrip("/")):
                return page
        return None

    def locate(self, passage: str, source_path: str | None = None) -> Chunk | None:
        """The chunk a selected passage comes from: verbatim if possible (markup and spacing
        differ between page and source), else the one holding most of its words. Only chunks
        that hold all of its words are read for it verbatim: reading every chunk of a big book
        took a tenth of a second."""
        if source_path:
            rows = np.array([self.row[chunk.id] for chunk in self.page_chunks(source_path)], dtype=int)
        else:
            rows = np.arange(len(self.chunks))
        needle = " ".join(passage.split()).lower()
        wanted = frozenset(lexical.terms(passage))
        held = self.postings.counts(wanted) if wanted else np.zeros(len(self.chunks), dtype=int)
        for row in rows[held[rows] == len(wanted)]:
            if needle and needle in " ".join(self.chunks[row].text.split()).lower():
                return self.chunks[row]
        if not wanted or not len(rows):
            return None
        best = rows[np.argmax(held[rows])]
        return self.chunks[best] if held[best] >= SELECTION_MATCH * len(wanted) else None


class Retriever:
    def __init__(
        self,
        index: BookIndex,
        embedder: Embedder,
        mode: RetrievalMode = "hybrid",
        reranker: CohereReranker | None = None,
    ):
        self.index = index
        self.embedder = embedder
        self.mode = mode
        self.reranker = reranker
        self._corpus: BookCorpus | None = None
        self._calibration: tuple[str, Calibration] | None = None
        self._lock = threading.Lock()

    @property
    def corpus(self) -> BookCorpus:
        collection = self.index.current_collection()
        with self._lock:
            if self._corpus is None or self._corpus.collection != collection:
                self._corpus = BookCorpus(self.index)
            return self._corpus

    @property
    def calibration(self) -> Calibration:
        """The book's calibration as ingest stored it; measured now (once per build) for an
        index calibrated by an earlier method, or not at all."""
        collection = self.index.current_collection() or ""
        if self._calibration is None or self._calibration[0] != collection:
            stored = self.index.metadata().get("calibration") or {}
            current = stored.get("method") == METHOD
            measured = Calibration.model_validate(stored) if current else calibrate(self.probe)
            self._calibration = (collection, measured)
        return self._calibration[1]

    def probe(self, question: str) -> Probe:
        """How near the book comes to `question`, the support the book gives it, and whether
        the search found one page."""
        # The order of the windows does not change these: a probe is not reranked.
        evidence = self.search(question, rerank=False).evidence
        return Probe(evidence.topical, evidence.nearest, evidence.support, evidence.one_page)

    def search(
        self,
        query: Query | str,
        k: int = 6,
        *,
        module: str | None = None,
        lesson: str | None = None,
        rerank: bool = True,
    ) -> SearchResult:
        """`rerank`: whether the reranker, if there is one, orders the windows."""
        with RETRIEVAL_LATENCY.time():
            return self._search(query if isinstance(query, Query) else Query(query), k, module, lesson, rerank)

    def _search(
        self, query: Query, k: int, module: str | None, lesson: str | None, rerank: bool
    ) -> SearchResult:
        corpus = self.corpus
        scope = self._scope(corpus, module, lesson)
        embedded = np.asarray(self.embedder.embed_query(corpus.distinctive(query.whole)), dtype=np.float32)
        cosines = corpus.cosines(embedded)
        inside = corpus.in_scope(scope)
        ranked_lists: list[list[tuple[str, float]]] = []
        if self.mode in ("hybrid", "dense"):
            ranked_lists.append(corpus.rank_dense(cosines, CANDIDATES, inside))
        if self.mode in ("hybrid", "lexical"):
            ranked_lists.append(corpus.rank_lexical(query.whole, CANDIDATES, inside))

        fused: dict[str, float] = {}
        chunks: dict[str, Chunk] = {}
        for ranked_ids in ranked_lists:
            for rank, (cid, _) in enumerate(ranked_ids):
                if cid in corpus.row:  # else the alias moved since the corpus was read
                    chunks[cid] = corpus.chunks[corpus.row[cid]]
                    fused[cid] = fused.get(cid, 0.0) + 1 / (RRF_K + rank + 1)
        # No boost for a heading that names the question's words: on all but one of 18 books it
        # put a gold passage first less often (docs/evaluation.md, "What was tried and dropped").
        for cid, chunk in chunks.items():
            fused[cid] *= KIND_PRIOR[chunk.kind]
        ranked = sorted(fused, key=fused.__getitem__, reverse=True)
        hits = self._drop_near_duplicates(corpus, ranked, chunks, fused, k)
        # A search limited to a lesson or a module has its page chosen for it.
        pages = {hit.chunk.source_path for hit in hits[:ONE_PAGE_PASSAGES]}
        page = pages.pop() if not scope and len(hits) >= ONE_PAGE_PASSAGES and len(pages) == 1 else None
        # Rank fusion can bury a passage that one retriever alone ranks first (an exact term
        # the embedding misses): each retriever's best full-lesson passage is read too.
        for ranked_ids in ranked_lists:
            lessons = (cid for cid, _ in ranked_ids if cid in chunks and chunks[cid].kind == "lesson")
            leader = next(lessons, None)
            if leader and all(h.chunk.id != leader for h in hits):
                hits.append(ScoredChunk(chunks[leader], fused[leader]))
        hits = _with_section_neighbours(corpus, hits)
        return SearchResult(hits, self._evidence(corpus, query, embedded, cosines, hits, page, rerank))

    @staticmethod
    def _scope(corpus: BookCorpus, module: str | None, lesson: str | None) -> dict[str, str]:
        """The chunk fields a search is limited to (module title, lesson's source path)."""
        scope = {"module": module} if module else {}
        if lesson:
            page = corpus.find_page(lesson)
            scope["source_path"] = page.source_path if page else lesson
        return scope

    @staticmethod
    def _drop_near_duplicates(
        corpus: BookCorpus,
        ranked: list[str],
        chunks: dict[str, Chunk],
        fused: dict[str, float],
        k: int,
    ) -> list[ScoredChunk]:
        kept: list[ScoredChunk] = []
        for cid in ranked:
            if not any(corpus.overlap(cid, h.chunk.id) >= DUPLICATE_OVERLAP for h in kept):
                kept.append(ScoredChunk(chunks[cid], fused[cid]))
            if len(kept) == k:
                break
        return kept

    def _evidence(
        self,
        corpus: BookCorpus,
        query: Query,
        query_vector: np.ndarray,
        cosines: np.ndarray,
        hits: list[ScoredChunk],
        page: str | None,
        rerank: bool,
    ) -> Evidence:
        """`page`: the page all of the search's best passages come from, if they do."""
        sentences = [
            s for hit in hits[:EVIDENCE_PASSAGES] for s in split_sentences(hit.chunk.id, hit.chunk.text)
        ]
        asked = lexical.terms(query.whole, compounds=False)
        own = lexical.terms(query.text, compounds=False)
        context = frozenset(asked).difference(own)
        given = {hit.chunk.id: corpus.terms_of(hit.chunk.id) & context for hit in hits}
        windows = rank_windows(asked, sentences, corpus.idf, 3 * EVIDENCE_WINDOWS, given)
        others = corpus.others(cosines)
        semantic = corpus.rescaled(cosines, others)
        similarity = {hit.chunk.id: float(semantic[corpus.row[hit.chunk.id]]) for hit in hits}
        cosine = {hit.chunk.id: float(cosines[corpus.row[hit.chunk.id]]) for hit in hits}
        nearest = float(cosines.max())
        if not windows:
            return Evidence(similarity=similarity, cosine=cosine, nearest=nearest)
        asked_weights, own_weights = lexical.Weights(asked, corpus.idf), lexical.Weights(own, corpus.idf)
        for window in windows:
            terms = corpus.terms_of(window.chunk_id)
            window.lexical = _read_in_passage(window.lexical, asked_weights.share(terms))
            if context and own:  # "Why?" has no words of its own: all of them choose
                said = own_weights.share(window.terms)
                window.own = _read_in_passage(said, own_weights.share(terms))
        unit = _unit(query_vector)
        parts = {hit.chunk.id: corpus.read_in_parts(corpus.row[hit.chunk.id], unit, others[corpus.row[hit.chunk.id]])
                 for hit in hits[:EVIDENCE_PASSAGES]}
        for window in windows:
            window.semantic = _read_where_it_is(window, parts[window.chunk_id], similarity[window.chunk_id])
        topical = float(semantic.max())
        kind = {hit.chunk.id: hit.chunk.kind for hit in hits}
        # A lesson says it in full; a summary or overview restates it: quote the lesson.
        question = query.asked  # what was pasted (code, a log) does not say what kind of answer is asked for
        rank = {hit.chunk.id: i for i, hit in enumerate(hits)}
        # A section whose heading asks the reader's question (a FAQ's) is the answer to it: the
        # reader's own words, not the earlier question a follow-up leans on (already answered).
        readers = frozenset(own or asked)
        answers_it = {hit.chunk.id: corpus.heading_asks(hit.chunk, readers) for hit in hits}
        windows.sort(
            key=lambda w: (w.answer_fit(question, own_words=True) + ANSWER_TYPE_BONUS * answers_it[w.chunk_id])
            * KIND_PRIOR[kind[w.chunk_id]]
            + SEARCH_RANK_PRIOR * (1 - rank[w.chunk_id] / len(hits)),
            reverse=True,
        )
        if rerank and self.reranker is not None:
            relevance = self.reranker.scores(query.whole, [window.text for window in windows])
            if relevance is not None:  # else Cohere failed: the order above stands
                order = sorted(range(len(windows)), key=lambda i: -relevance[i])
                windows = [windows[i] for i in order]
        best, support = max(((w, w.evidence(question)) for w in windows), key=lambda pair: pair[1])
        measured = max(w.support for w in windows)  # before any window is found unable to answer
        if states_without_way(question, own, windows):
            support = CANNOT_ANSWER
        one_page = page is not None and corpus.chunks[corpus.row[best.chunk_id]].source_path == page
        # A question about a name the book never uses ("What MPPI parameters …?") is not answered
        # by it, however close its other words come (its related lessons are still suggested).
        # A name in a statement that sets the scene ("Our docstrings carry Sphinx fields. How
        # do I …?") or in what they pasted is the reader's setting, not what they ask about.
        if unmentioned := corpus.unmentioned(Query(scene_and_question(query.text)[1], query.context).asked):
            support = CANNOT_ANSWER
        read = {hit.chunk.id for hit in hits[:EVIDENCE_PASSAGES]}

        def continued(chunk_id: str) -> list[Sentence]:
            """The next passage of the section, past the sentence it repeats, if it was read."""
            following = corpus.next_in_section(corpus.chunks[corpus.row[chunk_id]])
            if following is None or following.id not in read:
                return []
            repeated = len(split_sentences(following.id, following.text[: following.overlap_chars]))
            return [s for s in sentences if s.chunk_id == following.id][repeated:]

        written = "\n".join((query.text, *query.pasted))
        windows = _distinct(_past_the_readers_words(windows, sentences, written, continued))
        return Evidence(support, topical, windows, unmentioned, one_page, similarity, measured=measured,
                        cosine=cosine, nearest=nearest)


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / max(float(np.linalg.norm(vector)), 1e-9)


def _read_where_it_is(window: Window, parts: list[tuple[frozenset[str], float]], passage: float) -> float:
    """The semantic score of the part of a long passage the model read `window` in: of the
    parts that read most of its words (two overlap where one was cut), the nearer; the
    passage's own where it was read whole, or no part reads any of the window's words."""
    read = [len(window.terms & terms) for terms, _ in parts]
    if not any(read):
        return passage
    return max(score for (_, score), words in zip(parts, read, strict=True) if words == max(read))


def _read_in_passage(said: float, passage: float) -> float:
    """A window's share of the question's words, with those only the rest of its passage holds
    counted for PASSAGE_CONTEXT."""
    return said + PASSAGE_CONTEXT * (max(passage, said) - said)


def _acronym(name: str) -> bool:
    """Mostly capitals (IMU, GEMs, cuVSLAM): initials that a phrase may spell out. A CamelCase
    name (NavFn, IsaacSim) is made of words, not initials."""
    return sum(c.isupper() for c in name) >= sum(c.islower() for c in name)


def _with_section_neighbours(corpus: BookCorpus, hits: list[ScoredChunk]) -> list[ScoredChunk]:
    """The best passages, each followed by the rest of its section when the section was cut
    into several chunks: a section's definition often sits in a chunk that shares few words
    with the question, next to the one that matched."""
    seen = {hit.chunk.id for hit in hits}
    expanded: list[ScoredChunk] = []
    for rank, hit in enumerate(hits):
        expanded.append(hit)
        if rank >= SECTION_HITS:
            continue
        for chunk in corpus.neighbours(hit.chunk):
            if chunk.id not in seen and chunk.section == hit.chunk.section:
                seen.add(chunk.id)
                expanded.append(ScoredChunk(chunk, hit.score * 0.99))  # just below the one it completes
    return expanded


def _past_the_readers_words(
    windows: list[Window], sentences: list[Sentence], question: str, continued: Callable[[str], list[Sentence]]
) -> list[Window]:
    """The windows without what the reader wrote (an error message pasted into the question),
    with their scores: such a sentence is the best evidence that the passage is about the
    question, but quoting it back tells the reader nothing, and what the book says next is what
    it says of it (as for a selection). A window of prose loses the reader's sentences and runs
    on with the ones after it; an example's lines holding a line they pasted show what they
    already have, so the text after the example takes their place. Where the passage ends
    there, the window runs on into the section's next passage (`continued(passage id)`: the
    next passage's sentences past the one it repeats, when the search read it; looked up only
    for such a window): a section cut
    into passages often ends one with the example and opens the next with what it says of it.
    A sentence that only uses the question's words ("A publisher's default queue size is 10"
    for "Is it 10?") is an answer, not their text."""
    asked = _words(question)
    told: list[Window] = []
    for window in windows:
        said = [_written_in(s, asked) for s in window.sentences]
        if not any(said):
            told.append(window)
            continue
        kept = [] if window.code else [s for s, theirs in zip(window.sentences, said, strict=True) if not theirs]
        last = window.sentences[-1]
        rest = _rest_of_passage(last, sentences)
        skipped = 0
        while (last.code or last.example) and skipped < len(rest) and rest[skipped].code:
            skipped += 1  # the rest of the example's lines (or those the lead-in quotes)
        # a window quotes one passage: one that keeps some of its sentences stays in it
        following = rest[skipped : skipped + WINDOW] or ([] if kept else continued(last.chunk_id)[:WINDOW])
        # the window runs on in its own kind: prose after prose, else whatever follows first
        kind = bool(following) and not kept and following[0].code
        following = [s for s in following if s.code == kind and not _written_in(s, asked)]
        run_on = (kept + following)[:WINDOW]
        if run_on and run_on[-1].leads_in and len(run_on) > 1:
            run_on.pop()  # as a window never ends on a lead-in
        if run_on:
            told.append(Window(run_on[0].chunk_id, run_on, window.lexical, window.semantic, window.own))
        elif not all(said):  # an example that ends what was read of its section still shows more
            told.append(window)
    return told


def _rest_of_passage(last: Sentence, sentences: list[Sentence]) -> list[Sentence]:
    """The sentences after `last` in its passage (a passage's sentences come together)."""
    after = sentences[sentences.index(last) + 1 :]
    return list(takewhile(lambda sentence: sentence.chunk_id == last.chunk_id, after))


def _words(text: str) -> str:
    return " " + " ".join(re.findall(r"\w+", text.lower())) + " "


def _written_in(sentence: Sentence, asked: str) -> bool:
    """Whether the reader wrote the sentence, word for word, into their question, or pasted a
    line of the example it introduces (the output a lead-in shows). A line of an example
    counts when most of its words are one run of the question: readers paste an error without
    its decorations ("cannot be sent between threads safely" for the compiler's "error[E0277]:
    `Rc<Mutex<i32>>` cannot be sent between threads safely"). A line's comment is not what it
    pastes ("max_vel_x: 0.5  # the maximum speed of the robot in m/s")."""
    # An example's line counts as pasted when it is a run of words, not a two-word command
    # ("cargo build") the question may name in passing.
    if any(len(_words(line).split()) >= PASTED_RUN and _pasted(line, asked) for line in sentence.example):
        return True
    if sentence.code:
        return _pasted(sentence.text, asked)
    words = _words(sentence.text).split()
    return len(words) >= 2 and f" {' '.join(words)} " in asked


def _pasted(line: str, asked: str) -> bool:
    words = _words(_CODE_COMMENT.split(line, 1)[0]).split()
    if len(words) < PASTED_RUN:
        return len(words) >= 2 and f" {' '.join(words)} " in asked
    run = max(PASTED_RUN, len(words) // 2 + 1)  # a longer run holds one of this length
    runs = (" ".join(words[start : start + run]) for start in range(len(words) - run + 1))
    return any(f" {words_in_a_row} " in asked for words_in_a_row in runs)


def _distinct(windows: list[Window]) -> list[Window]:
    """The best EVIDENCE_WINDOWS windows that share no sentence with a better one (windows
    overlap by construction, and examples repeat lines such as `robot_radius: 0.4`)."""
    kept: list[Window] = []
    seen: set[tuple[str, int] | str] = set()
    for window in windows:
        keys = {key for s in window.sentences for key in ((s.chunk_id, s.index), s.text)}
        if not keys & seen:
            kept.append(window)
            seen |= keys
        if len(kept) == EVIDENCE_WINDOWS:
            break
    return kept
