"""The agent's tools: search the book, read around a selection, look up a lesson.

Each tool registers the passages it returns in the run state under a run-wide ref (`S1`, …);
only those refs can become citations (grounding/citations.py).
"""

import asyncio
import json

from agents import RunContextWrapper, function_tool

from backend.grounding.run import RunState
from backend.retrieval.index import ScoredChunk
from backend.retrieval.models import Chunk
from backend.retrieval.query import Query

KEY_SENTENCES = 4


def _passage(state: RunState, hit: ScoredChunk) -> dict[str, object]:
    chunk = hit.chunk
    return {
        "ref": state.register(hit),
        "module": chunk.module,
        "lesson": chunk.lesson,
        "section": chunk.section,
        "kind": chunk.kind,
        "text": chunk.text,
    }


@function_tool(failure_error_function=None)  # failures reach the API as 503s
async def search_book_content(
    ctx: RunContextWrapper[RunState],
    query: str,
    context: list[str] | None = None,
    pasted: list[str] | None = None,
    module: str | None = None,
    lesson: str | None = None,
) -> str:
    """Search the book for passages relevant to a standalone query.

    Args:
        query: What to look for, as a complete question or phrase (pronouns resolved).
        context: Optional earlier questions the query leans on (for a follow-up such as
            "What is its range?", the question it follows: "What is a ToF camera?").
        pasted: Optional code, error output, log or configuration the reader pasted with
            the question, as they pasted it: it helps find passages, the query says what to quote.
        module: Optional module title to search within.
        lesson: Optional lesson id, source path or URL to search within.
    """
    state = ctx.context
    searched = Query(query, tuple(context or ()), tuple(pasted or ()))
    result = await asyncio.to_thread(
        state.retriever.search, searched, state.top_k, module=module, lesson=lesson
    )
    state.weigh(searched, result.evidence)
    passages = [_passage(state, hit) for hit in result.hits]
    by_id = {hit.chunk.id: hit for hit in result.hits}
    key_sentences = [
        {
            "ref": state.register(by_id[w.chunk_id]),
            "lesson": by_id[w.chunk_id].chunk.lesson,
            "module": by_id[w.chunk_id].chunk.module,
            "text": w.text,
            # how well it fits what is asked (the plain mean of its two measures, plus an
            # answer-type bonus): never below its evidence, on the scale of "support" below
            # only roughly, so a window near the search's support is worth quoting too. The
            # sentences come best first for the reader's own words (a follow-up's earlier words
            # count here, not in their order), so a later one may show more.
            "support": round(w.answer_fit(searched.asked), 4),
        }
        for w in result.evidence.windows[:KEY_SENTENCES]
        if w.chunk_id in by_id
    ]
    return json.dumps(
        {
            "query": query,
            "context": list(searched.context),
            "pasted": list(searched.pasted),
            "support": round(result.evidence.support, 4),
            # the support at which this book answers this search (measured on it at ingest;
            # lower when the best passages are all on one page), rounded as support is so that
            # a model compares like with like
            "answerable": state.retriever.calibration.answerable_for(result.evidence.one_page),
            "key_sentences": key_sentences,
            "passages": passages,
        },
        ensure_ascii=False,
    )


@function_tool(failure_error_function=None)  # failures reach the API as 503s
async def get_selected_text_context(
    ctx: RunContextWrapper[RunState], selected_text: str, lesson_id: str | None = None
) -> str:
    """Find the passage the reader selected, with the paragraphs around it and its lesson.

    Args:
        selected_text: The text the reader selected on the page.
        lesson_id: The lesson the reader is on (doc id, source path or URL), if known.
    """
    state = ctx.context
    corpus = await asyncio.to_thread(lambda: state.retriever.corpus)
    page = corpus.find_page(lesson_id) if lesson_id else None
    found = corpus.locate(selected_text, page.source_path if page else None)
    if found is None and page is not None:
        found = corpus.locate(selected_text)
    if found is None:
        return json.dumps({"found": False, "passages": []})
    neighbours: list[Chunk] = corpus.neighbours(found)
    passages = [_passage(state, ScoredChunk(c, 1.0 if c.id == found.id else 0.5)) for c in neighbours]
    page = page or corpus.find_page(found.source_path)
    return json.dumps(
        {
            "found": True,
            "selected_ref": state.ref_of(found.id),
            "lesson": page.model_dump(include={"title", "module", "lesson_id", "objectives"})
            if page
            else None,
            "passages": passages,
        },
        ensure_ascii=False,
    )


@function_tool(failure_error_function=None)  # failures reach the API as 503s
async def get_lesson_metadata(ctx: RunContextWrapper[RunState], lesson_id: str) -> str:
    """Title, module, objectives, skills, tags and sections of a lesson.

    Args:
        lesson_id: The lesson's doc id, source path or URL.
    """
    corpus = await asyncio.to_thread(lambda: ctx.context.retriever.corpus)
    page = corpus.find_page(lesson_id)
    if page is None:
        return json.dumps({"found": False, "lessons": [p.lesson_id for p in corpus.pages]})
    sections = list(dict.fromkeys(c.section for c in corpus.page_chunks(page.source_path) if c.section))
    return json.dumps(
        {"found": True, **page.model_dump(exclude={"book"}), "sections": sections},
        ensure_ascii=False,
    )


TOOLS = [search_book_content, get_selected_text_context, get_lesson_metadata]
