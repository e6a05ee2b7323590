"""The offline answer model: an openai-agents `Model` that needs no network and no API key.

It plays the same game as an LLM: first it calls the agent's tools (a selection lookup when
the reader selected text, then searches with a standalone query), then it reads their output
and answers with the retrieved sentences that best answer the question, each followed by the
ref of its passage. It writes no words of its own, so it cannot invent facts; when the
evidence is too weak it declines with the NOT_IN_BOOK marker, as the instructions ask.
"""

import json
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

from agents import Model, ModelResponse, ModelSettings, ModelTracing, Usage
from agents.agent_output import AgentOutputSchemaBase
from agents.handoffs import Handoff
from agents.items import TResponseInputItem, TResponseStreamEvent
from agents.tool import Tool
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputItem,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseTextDeltaEvent,
)

from backend.agent.context import Question
from backend.agent.followups import standalone_query, topic_parts
from backend.grounding.messages import NOT_IN_BOOK_MARKER
from backend.grounding.status import ANSWERABLE

MAX_SENTENCE_WINDOWS = 3
NEAR_BEST = 0.8  # windows within this share of the best one are worth quoting too
STREAM_WORDS = 3  # words per streamed delta

MODEL_NAME = "offline-extractive"


class OfflineAnswerModel(Model):
    """One instance per question (it knows the reader's question and selection)."""

    def __init__(self, question: Question):
        self.question = question

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        **_: Any,
    ) -> ModelResponse:
        outputs = _tool_outputs(input)
        available = {tool.name for tool in tools}
        if any("key_sentences" in o for o in outputs):
            items: list[ResponseOutputItem] = [_message(self.compose(outputs))]
        else:
            items = list(self.plan_tool_calls(outputs, available))
        return ModelResponse(output=items, usage=Usage(requests=1), response_id=None)

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        **kwargs: Any,
    ) -> AsyncIterator[TResponseStreamEvent]:
        response = await self.get_response(
            system_instructions, input, model_settings, tools, output_schema, handoffs, tracing
        )
        sequence = 0
        for index, item in enumerate(response.output):
            if isinstance(item, ResponseOutputMessage):
                words = item.content[0].text.split(" ") if item.content else []
                for start in range(0, len(words), STREAM_WORDS):
                    piece = " ".join(words[start : start + STREAM_WORDS])
                    yield ResponseTextDeltaEvent(
                        type="response.output_text.delta",
                        item_id=item.id,
                        output_index=index,
                        content_index=0,
                        delta=piece if start == 0 else " " + piece,
                        logprobs=[],
                        sequence_number=sequence,
                    )
                    sequence += 1
        yield ResponseCompletedEvent(
            type="response.completed",
            response=Response(
                id=f"resp_{uuid.uuid4().hex}",
                created_at=time.time(),
                model=MODEL_NAME,
                object="response",
                output=response.output,
                tool_choice="auto",
                tools=[],
                parallel_tool_calls=True,
            ),
            sequence_number=sequence,
        )

    def plan_tool_calls(
        self, outputs: list[dict[str, Any]], available: set[str]
    ) -> list[ResponseFunctionToolCall]:
        """First read around the reader's selection (if any), then search: with the selection
        when it was found in the book, else with the standalone question, plus one search per
        topic of a question that joins several."""
        question = self.question
        calls: list[tuple[str, dict[str, Any]]] = []
        if question.selected_text and not outputs and "get_selected_text_context" in available:
            arguments = {"selected_text": question.selected_text, "lesson_id": question.lesson_id}
            calls.append(("get_selected_text_context", arguments))
        else:
            selection_found = any(o.get("found") for o in outputs)
            if question.selected_text and selection_found:
                query = f"{question.text} {question.selected_text}"
            else:
                query = standalone_query(question.text, question.history)
            calls.append(("search_book_content", {"query": query}))
            calls.extend(("search_book_content", {"query": part}) for part in topic_parts(query))
        return [
            ResponseFunctionToolCall(
                type="function_call",
                id=f"fc_{uuid.uuid4().hex}",
                call_id=f"call_{uuid.uuid4().hex}",
                name=name,
                arguments=json.dumps(arguments),
            )
            for name, arguments in calls
            if name in available
        ]

    @staticmethod
    def compose(outputs: list[dict[str, Any]]) -> str:
        """The best sentence windows of the main search that do not repeat each other, best
        first; then, for a question that joins topics, the best window of each topic's own
        search when it comes from another lesson. Each window is followed by its ref."""
        searches = [o for o in outputs if "key_sentences" in o]
        if not searches:
            return NOT_IN_BOOK_MARKER
        main, parts = searches[0], searches[1:]
        windows = main["key_sentences"]  # the search ranks them, best answer first
        if not windows or main["support"] < ANSWERABLE:
            return NOT_IN_BOOK_MARKER
        floor = max(ANSWERABLE, main["support"] * NEAR_BEST)
        chosen: list[dict[str, Any]] = []
        for window in windows:
            if len(chosen) < MAX_SENTENCE_WINDOWS and window["support"] >= floor:
                if not any(_overlapping(window, c) for c in chosen):
                    chosen.append(window)
        for part in parts:
            best = part["key_sentences"][0] if part["key_sentences"] else None
            if best and best["support"] >= ANSWERABLE:
                if all(best["lesson"] != c["lesson"] for c in chosen):
                    chosen.append(best)
        return " ".join(f"{w['text']} [{w['ref']}]" for w in chosen)


def _overlapping(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a["text"][:60] in b["text"] or b["text"][:60] in a["text"]


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def _tool_outputs(input: str | list[TResponseInputItem]) -> list[dict[str, Any]]:
    """Parsed outputs of the tool calls made since the reader's latest message."""
    if isinstance(input, str):
        return []
    outputs: list[dict[str, Any]] = []
    for item in input:
        if _field(item, "role") == "user":
            outputs = []
        elif _field(item, "type") == "function_call_output":
            try:
                parsed = json.loads(str(_field(item, "output")))
            except json.JSONDecodeError:
                continue
            if isinstance(parsed, dict):
                outputs.append(parsed)
    return outputs


def _message(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        type="message",
        id=f"msg_{uuid.uuid4().hex}",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )
