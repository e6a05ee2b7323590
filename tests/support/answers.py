"""Asking an engine as the API does: streamed, collecting the deltas and the final answer."""

from dataclasses import replace

from backend.agent.agent import AnswerEngine, TextDelta
from backend.grounding.answer import Answer
from backend.question import Question


async def ask(engine: AnswerEngine, text: str, **context: object) -> tuple[Answer, str]:
    streamed = ""
    final: Answer | None = None
    async for event in engine.stream(Question(text=text, **context)):
        if isinstance(event, TextDelta):
            streamed += event.text
        else:
            final = event
    assert final is not None
    return final, streamed


def composing(engine: AnswerEngine) -> AnswerEngine:
    """The engine with a judge that gives every answer it composes: for tests of what is
    retrieved and quoted, apart from whether the judge gives it (measured by `lectern eval`)."""
    return AnswerEngine(engine.retriever, engine.models, engine.top_k, replace(engine.judge, found_at=0.0))
