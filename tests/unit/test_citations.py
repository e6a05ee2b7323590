"""Citation markers are checked against the run's retrieved passages, however they stream in."""

from itertools import permutations

import pytest

from backend.engine import Library
from backend.grounding.citations import Citation, CitationStream
from backend.grounding.run import RunState
from backend.question import Question
from backend.retrieval.index import ScoredChunk
from backend.retrieval.models import Chunk
from backend.retrieval.query import Query
from backend.retrieval.search import Evidence


def hit(name: str, text: str = "First sentence here. Second one.") -> ScoredChunk:
    chunk = Chunk(
        book="b", lesson_id=name, source_path=f"{name}.md", module="M", lesson=name.title(),
        section="S", heading="S", anchor="s", url=f"/docs/{name}#s", kind="lesson",
        position=0, text=text, start=0, end=len(text),
    )
    return ScoredChunk(chunk, 0.5)


@pytest.fixture
def sources() -> dict[str, ScoredChunk]:
    a, b = hit("alpha"), hit("beta", "Beta is about sensors. It has 30 fps cameras.")
    return {"S1": a, "S2": b, "S3": a}  # S3 is the same passage as S1


def run(sources: dict[str, ScoredChunk], deltas: list[str]) -> tuple[str, CitationStream]:
    stream = CitationStream(sources)
    out = "".join(stream.feed(d) for d in deltas) + stream.finish()
    return out, stream


def test_markers_are_renumbered_merged_and_invented_ones_dropped(sources) -> None:
    text, stream = run(sources, ["Beta has 30 fps cameras [S2]. Alpha [S1, S3] and [S9]", " too [S3]."])
    assert text == "Beta has 30 fps cameras [1]. Alpha [2] and too [2]."
    citations = stream.citations()
    assert [(c.number, c.source_path) for c in citations] == [(1, "beta.md"), (2, "alpha.md")]
    assert citations[0].excerpt == "It has 30 fps cameras."  # the sentence the answer quoted


@pytest.mark.parametrize("cut", range(1, 12))
def test_a_marker_split_across_deltas_is_still_recognised(sources, cut: int) -> None:
    whole = "Cameras [S2, S1] matter [S4]."
    text, _ = run(sources, [whole[:cut], whole[cut:]])
    assert text == "Cameras [1][2] matter."


def test_text_without_markers_passes_through_unchanged(sources) -> None:
    text, stream = run(sources, ["Plain [text] with brackets", " and [links](x)."])
    assert text == "Plain [text] with brackets and [links](x)."
    assert stream.citations() == []


def test_a_run_keeps_the_same_evidence_and_sources_whichever_search_finishes_first(
    real_library: Library,
) -> None:
    """The searches of one turn run at once and finish in any order: the run keeps the
    evidence furthest above the level it is judged by (of two as strong, the one whose query
    sorts first) and each passage's best score, so its grade and its suggested lessons do not
    depend on thread timing. A search that found one page is judged by a lower level, so it
    may stand further above it than a stronger search elsewhere."""
    retriever = real_library.engine().retriever
    low, level = retriever.calibration.answerable_on_one_page, retriever.calibration.answerable
    assert low < level
    on_one_page = Evidence(support=low + 0.01, topical=0.2, one_page=True)
    elsewhere = Evidence(support=level - 0.005, topical=0.2)
    runs = {
        "strongest": ([(Query("servo torque"), Evidence(support=0.5, topical=0.3)),
                       (Query("servo"), Evidence(support=0.5, topical=0.4)),
                       (Query("torque"), Evidence(support=0.2, topical=0.9))], Query("servo")),
        "one page": ([(Query("servo"), on_one_page), (Query("torque"), elsewhere)], Query("servo")),
        "one query twice": ([(Query("servo"), elsewhere), (Query("servo"), on_one_page)], Query("servo")),
    }
    for searches, expected in runs.values():
        kept = set()
        for order in permutations(searches):
            state = RunState(Question(text="Why does the servo lose torque?"), retriever=retriever)
            for query, evidence in order:
                state.weigh(query, evidence)
            kept.add((state.evidence_query, id(state.evidence)))
            assert set(state.searched) == {query for query, _ in searches}
        assert len(kept) == 1 and kept.pop()[0] == expected
    assert state.searched[Query("servo")] is on_one_page
    state = RunState(Question(text="?"), retriever=retriever)
    first = hit("a")
    ref = state.register(ScoredChunk(first.chunk, 0.1))
    assert state.register(ScoredChunk(first.chunk, 0.3)) == ref and state.sources[ref].score == 0.3


def test_two_parts_of_one_section_are_one_citation() -> None:
    """A long section is cut into parts; quoting two of them cites the section once, with the
    part quoted first as its passage."""
    first = hit("alpha", "Servos hold their position with a feedback loop.")
    second = ScoredChunk(first.chunk.model_copy(update={"position": 1, "text": "The loop runs at 50 Hz."}), 0.4)
    other = hit("beta", "Beta is about sensors. It has 30 fps cameras.")
    text, stream = run({"S1": first, "S2": other, "S3": second}, ["Servos hold it [S1]. Cameras [S2]. At 50 Hz [S3]."])
    assert text == "Servos hold it [1]. Cameras [2]. At 50 Hz [1]."
    citations = stream.citations()
    assert [(c.number, c.source_path) for c in citations] == [(1, "alpha.md"), (2, "beta.md")]
    assert citations[0].excerpt == "Servos hold their position with a feedback loop."
    assert stream.numbers == {first.chunk.id: 1, other.chunk.id: 2, second.chunk.id: 1}


def test_two_sections_of_one_page_are_two_citations() -> None:
    first = hit("alpha")
    other_section = ScoredChunk(first.chunk.model_copy(update={
        "position": 1, "section": "T", "heading": "T", "anchor": "t", "url": "/docs/alpha#t"}), 0.4)
    text, stream = run({"S1": first, "S2": other_section}, ["One [S1]. Two [S2, S1]."])
    assert text == "One [1]. Two [2][1]."
    assert [c.url for c in stream.citations()] == ["/docs/alpha#s", "/docs/alpha#t"]


@pytest.mark.parametrize(("parts", "label"), [
    ({"module": "Readers", "lesson": "Privacy", "section": "Logs"}, "Readers · Privacy · Logs"),
    ({"module": "Readers", "lesson": "Privacy", "section": ""}, "Readers · Privacy"),  # the page's opening
    ({"module": "", "lesson": "Privacy", "section": "Logs"}, "Privacy · Logs"),  # a book without modules
    ({"module": "", "lesson": "Guide", "section": ""}, "Guide"),
    ({"module": "Readers", "lesson": "Readers", "section": "Logs"}, "Readers · Logs"),  # an overview page
    ({"module": "Manual", "lesson": "Setup", "section": "Wiring", "page": 12}, "Manual · Setup · p. 12 · Wiring"),
])
def test_a_citation_is_labelled_by_the_parts_it_has(parts: dict, label: str) -> None:
    citation = Citation(number=1, heading=parts["section"], url="/x", source_path="x.md", excerpt="",
                        score=0.5, **parts)
    assert citation.label == label
