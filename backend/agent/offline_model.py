"""The offline answer model: an openai-agents `Model` that needs no network and no API key.

It plays the same game as an LLM: first it calls the agent's tools (a selection lookup when
the reader selected text, then searches with a standalone query), then it reads their output
and answers with the retrieved sentences that best answer the question, each followed by the
ref of its passage. It writes no words of its own, so it cannot invent facts. It quotes the
best it found however weak; whether that answers is the judge's to say (grounding/judge.py), as
for any model's answer. It declines with the NOT_IN_BOOK marker only when nothing was found.
"""

import json
import re
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

from backend.grounding.messages import NOT_IN_BOOK_MARKER
from backend.question import (
    Question,
    asks_about_the_text,
    leaning_on_the_first,
)
from backend.retrieval import lexical
from backend.retrieval.query import Query
from backend.retrieval.sentences import introduces, sentence_texts, split_sentences

MAX_SENTENCE_WINDOWS = 3
# Windows whose fit is within this share of the search's support are worth quoting too. A
# window's fit (the plain mean of its measures, plus bonuses) is never below its evidence (their
# geometric mean), so the floor lets through every window near the best; quoting only windows
# that are evidence enough on their own, or near the best window's fit, lost phrase hits on
# six of eleven sets (Jinja's three) and gained one on two (`git show 420729a`).
NEAR_BEST = 0.8
STREAM_WORDS = 3  # words per streamed delta
PREVIOUS_EXCHANGE_CHARS = 400

MODEL_NAME = "offline-extractive"


class OfflineAnswerModel(Model):
    """One instance per question (it knows the reader's question and selection)."""

    def __init__(self, question: Question):
        self.question = question
        # The question's parts, if it asks several things, and their search queries.
        parts = question.asked.parts
        self.part_topics = _own_terms(list(parts))
        self.part_queries = list(parts.values())
        self.leaning = leaning_on_the_first(parts) if parts else {}
        self.relates = question.asked.relates

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
        calls = [(name, arguments) for name, arguments in self.next_tool_calls(outputs, available)
                 if name in available]
        items: list[ResponseOutputItem] = (
            [_tool_call(name, arguments) for name, arguments in calls]
            if calls
            else [_message(self.compose(outputs))]
        )
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

    def next_tool_calls(
        self, outputs: list[dict[str, Any]], available: set[str]
    ) -> list[tuple[str, dict[str, Any]]]:
        """What to look up next, given what the tools returned so far ([] = time to answer).
        First read around the reader's selection (if any); then search with the selection when
        it was found in the book, else with the standalone question, plus one search per part
        of a question that asks several things; then, if a follow-up found too little, search
        once more with the previous exchange as context, as the instructions ask of any model,
        and a later part that found too little alone once more leaning on the first part."""
        question = self.question
        searches = [o for o in outputs if "key_sentences" in o]
        if self._about_the_page():
            return self._read_the_page(outputs, searches)
        if question.selected_text and not outputs and "get_selected_text_context" in available:
            return [("get_selected_text_context",
                     {"selected_text": question.selected_text, "lesson_id": question.lesson_id})]
        if not searches:
            if question.selected_text and any(o.get("found") for o in outputs):
                query = Query(f"{question.text} {question.selected_text}")
            else:
                query = question.asked.query
            return [_search_call(q) for q in [query, *self.part_queries]]
        searched = {_searched(s) for s in searches}
        retries = [
            self.leaning[_searched(s)] for s in searches
            if _searched(s) in self.leaning and s["support"] < s["answerable"]
        ]
        retry = self._with_previous_exchange()
        found_little = all(s["support"] < s["answerable"] for s in self._whole_question(searches))
        if retry and found_little:
            retries.append(retry)
        return [_search_call(q) for q in retries if q not in searched]

    def _about_the_page(self) -> bool:
        """"What are the key ideas of this page?" with the page known."""
        return bool(self.question.lesson_id) and asks_about_the_text(self.question) == "page"

    def _read_the_page(
        self, outputs: list[dict[str, Any]], searches: list[dict[str, Any]]
    ) -> list[tuple[str, dict[str, Any]]]:
        """Look the lesson up, then search within it for what its title, description and
        objectives say it is about: its most representative sentences answer."""
        lesson_id = self.question.lesson_id
        if not outputs:
            return [("get_lesson_metadata", {"lesson_id": lesson_id})]
        if searches:
            return []
        lesson = outputs[0]
        if not lesson.get("found"):
            return []  # nothing to read: the model declines
        about = " ".join([lesson["title"], lesson.get("description", ""), *lesson.get("objectives", [])])
        return [("search_book_content", {"query": about, "lesson": lesson_id})]

    def _whole_question(self, searches: list[dict[str, Any]]) -> list[dict[str, Any]]:
        parts = {*self.part_queries, *self.leaning.values()}
        return [s for s in searches if _searched(s) not in parts]

    def _parts(self, searches: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Each part's search: its own, or the one leaning on the first part when that was made
        (the part alone found too little). Its support owes much to the first part's words, so
        only its windows that use a word of the part's own answer the part."""
        chosen: list[dict[str, Any]] = []
        for query in self.part_queries:
            own = [s for s in searches if _searched(s) == query]
            leaning = [s for s in searches if _searched(s) == self.leaning.get(query)]
            words = frozenset(lexical.terms(query.text, compounds=False))
            windows = [
                w for s in leaning for w in s["key_sentences"]
                if words & frozenset(lexical.terms(w["text"], compounds=False))
            ]
            chosen += [{**leaning[0], "key_sentences": windows}] if windows else own
        return chosen

    def _with_previous_exchange(self) -> Query | None:
        history = self.question.history
        if not history or self.question.selected_text:
            return None
        exchange = " ".join(turn.content for turn in history[-2:])
        asked = self.question.asked.query
        return Query(asked.text, pasted=asked.pasted).leaning_on(exchange[:PREVIOUS_EXCHANGE_CHARS])

    def compose(self, outputs: list[dict[str, Any]]) -> str:
        """The best sentence windows of the main search that do not repeat each other, best
        first (after the lead, one from a module not quoted yet before a second from the same);
        then the best window of each part's search (its own, or the one leaning on the first
        part) that the answer lacks. Each window is followed by its ref. Declines when no search
        found enough support."""
        searches = [o for o in outputs if "key_sentences" in o]
        if not searches:
            return NOT_IN_BOOK_MARKER
        selected = self.question.selected_text or ""
        whole = self._whole_question(searches)
        parts = self._parts(searches) if whole else []
        whole = whole or searches
        main = max(whole, key=lambda s: s["support"])  # the original query, or its retry
        windows = _new_to_reader(main["key_sentences"], selected)
        if selected:
            # Next to the selection is where a question about it is most likely answered.
            context = next((o for o in outputs if o.get("found")), None)
            asked = frozenset(lexical.terms(self.question.text, compounds=False))
            near = _around_selection(context, selected, asked)
            windows = [{**w, "support": main["support"]} for w in near] + windows
        # Whether the book answers is the judge's to say (grounding/judge.py), from what is quoted:
        # the best windows are quoted however weak the search's support.
        main_windows: list[dict[str, Any]] = []
        # The search's support is its best window's among all it scored, but it offers only its
        # best few for the reader's own words, none repeating them: when no window offered
        # reaches the floor, the best offered sets it.
        floor = main["support"] * NEAR_BEST
        if not any(w["support"] >= floor for w in windows):
            floor = max((w["support"] for w in windows), default=0.0) * NEAR_BEST
        for candidate in windows:
            window = _short_of(candidate, main_windows)
            new = window is not None and not any(_overlapping(window, c) for c in main_windows)
            if window is not None and window["support"] >= floor and new:
                main_windows.append(window)
        # A window that speaks to every part of the question leads. Else a question that asks
        # several things is led by the window that best answers it whole (the search that read
        # all of it), and one that asks how topics relate (how X and Y connect) by its topics'
        # own windows: its whole-question best often comes from a third page that names both
        # in passing. Each part then gets its own best window, preferring a lesson not cited yet
        # by the other parts or by a window on every part (the whole question's lead does not
        # count: it was chosen for the whole, not for a part).
        every_part = [w for w in main_windows if parts and all(_mentions(w, t) for t in self.part_topics)]
        chosen = (every_part or ([] if self.relates else main_windows))[:1]
        lead = [] if every_part else list(chosen)
        for part in parts:
            floor = max(part["answerable"], part["support"] * NEAR_BEST)
            candidates = [
                w for w in _new_to_reader(part["key_sentences"], selected)
                if w["support"] >= floor and not any(_overlapping(w, c) for c in chosen)
            ]
            cited = {c["lesson"] for c in chosen if c not in lead}
            candidates.sort(key=lambda w: w["lesson"] in cited)
            if part["support"] >= part["answerable"] and candidates:
                chosen.append(candidates[0])
        # The room left goes to the question's best windows, those of a module not quoted yet
        # first: each is near the best, and one from another part of the book says more than a
        # second from the same ("How do VLAs use ROS2?": the VLA module's action servers, and
        # what ROS2 itself is).
        room = max(len(chosen), MAX_SENTENCE_WINDOWS) if parts else MAX_SENTENCE_WINDOWS
        left = [w for w in main_windows if not any(_overlapping(w, c) for c in chosen)]
        while len(chosen) < room and left:
            quoted = {c.get("module") for c in chosen}
            window = next((w for w in left if w.get("module") not in quoted), left[0])
            left = [w for w in left if w is not window and not _overlapping(w, window)]
            chosen.append(window)
        if not chosen:
            return NOT_IN_BOOK_MARKER
        return " ".join(_cited(w["text"], w["ref"]) for w in chosen)


def _cited(text: str, ref: str) -> str:
    """The window's text and its marker: after a code block, on a line of its own (on the
    block's closing line it would be read as part of the fence)."""
    return f"{text}\n[{ref}]" if text.endswith("```") else f"{text} [{ref}]"


def _around_selection(
    context: dict[str, Any] | None, selected: str, asked: frozenset[str]
) -> list[dict[str, Any]]:
    """The sentence window of the selected passage and its neighbours (as
    get_selected_text_context returned them) that uses most of the question's own words (the
    closest to the selection of equals, text after it first), then the window that continues
    the selection when that is another: the question's words are often too few to say more
    than "after this"."""
    if context is None:
        return []
    seen = _normal(selected)
    sentences = [
        (passage, sentence)
        for passage in context["passages"]
        for sentence in split_sentences(passage["ref"], passage["text"])
    ]
    selection = {i for i, (_, sentence) in enumerate(sentences) if _normal(sentence.text) in seen}
    if not selection:
        return []
    start, end = min(selection), max(selection)
    ranked: list[tuple[int, float, dict[str, Any]]] = []
    for i, (passage, sentence) in enumerate(sentences):
        if i in selection:
            continue
        window = [sentence]
        after = i + 1
        if after < len(sentences) and after not in selection and sentences[after][0] is passage \
                and not sentences[after][1].leads_in:
            window.append(sentences[after][1])
        used = len(asked & frozenset().union(*(s.terms for s in window)))
        distance = i - end if i > end else start - i + 0.5
        text = " ".join(s.text for s in window)
        ranked.append((-used, distance, {"ref": passage["ref"], "lesson": passage["lesson"], "text": text}))
    ranked.sort(key=lambda r: r[:2])
    continuation = [r for r in ranked[1:] if r[1] == 1][:1]
    return [window for _, _, window in ranked[:1] + continuation]


def _new_to_reader(windows: list[dict[str, Any]], selected: str) -> list[dict[str, Any]]:
    """The windows with the sentences the reader selected cut out (they have read them)."""
    if not selected:
        return list(windows)
    read = [_loosely(sentence) for sentence in sentence_texts(selected)]
    kept = []
    for window in windows:
        text = window["text"]
        for sentence in read:
            text = sentence.sub(" ", text)
        text = re.sub(r"[ \t]+", " ", text).strip()  # a code block keeps its lines
        if re.search(r"[A-Za-z]{3}", text):
            kept.append({**window, "text": text})
    return kept


def _loosely(sentence: str) -> re.Pattern[str]:
    """Matches the sentence whatever markup or spacing the passage puts between its words."""
    words = re.findall(r"\w+", sentence)
    return re.compile(r"[\W_]*".join(map(re.escape, words)) + r"\W?", re.IGNORECASE)


def _normal(text: str) -> str:
    """Text as a reader sees it on the page: no inline markup, single spaces, lower case."""
    return " ".join(re.sub(r"[`*_]", "", text).split()).lower()


def _own_terms(parts: list[str]) -> list[frozenset[str]]:
    """The words each part of a question has to itself (its topic, not the shared wording)."""
    words = [frozenset(lexical.terms(part, compounds=False)) for part in parts]
    own = [w.difference(*(other for other in words if other is not w)) for w in words]
    return [terms for terms in own if terms]


def _mentions(window: dict[str, Any], topic: frozenset[str]) -> bool:
    """Whether the window uses most of the topic's words."""
    return 2 * len(topic & frozenset(lexical.terms(window["text"], compounds=False))) > len(topic)


def _short_of(window: dict[str, Any], quoted: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The window's sentences before the first that opens a window already quoted: they are
    still news. None when what is left only leads in to what was cut ("… as follows:")."""
    sentences = sentence_texts(window["text"])
    openings = {texts[0] for other in quoted if (texts := sentence_texts(other["text"]))}
    cut = next((i for i, sentence in enumerate(sentences) if i and sentence in openings), len(sentences))
    if cut == len(sentences):
        return window
    text = " ".join(sentences[:cut])
    return None if introduces(text) else {**window, "text": text}


def _overlapping(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a["text"][:60] in b["text"] or b["text"][:60] in a["text"]


def _search_call(query: Query) -> tuple[str, dict[str, Any]]:
    arguments: dict[str, Any] = {"query": query.text}
    if query.context:
        arguments["context"] = list(query.context)
    if query.pasted:
        arguments["pasted"] = list(query.pasted)
    return "search_book_content", arguments


def _searched(search: dict[str, Any]) -> Query:
    """The query a search tool output answered."""
    return Query(search["query"], tuple(search.get("context") or ()), tuple(search.get("pasted") or ()))


def _tool_call(name: str, arguments: dict[str, Any]) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        type="function_call",
        id=f"fc_{uuid.uuid4().hex}",
        call_id=f"call_{uuid.uuid4().hex}",
        name=name,
        arguments=json.dumps(arguments),
    )


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
