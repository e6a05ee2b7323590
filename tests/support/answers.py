"""Asking an engine as the API does: streamed, collecting the deltas and the final answer."""

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
