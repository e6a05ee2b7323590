"""The answer engine: one openai-agents run per question, grounded before anyone sees it."""

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

from agents import Agent, MaxTurnsExceeded, RunConfig, Runner, TResponseInputItem, UserError
from agents.stream_events import RawResponsesStreamEvent
from openai import APIConnectionError, APIStatusError, APITimeoutError, RateLimitError
from openai.types.responses import ResponseTextDeltaEvent

from backend.agent.errors import ModelUnavailable
from backend.agent.prompts import INSTRUCTIONS, user_message
from backend.agent.providers import ModelFactory
from backend.agent.tools import TOOLS
from backend.grounding import messages
from backend.grounding.answer import Answer, book_overview, declined, ground, not_found, topics
from backend.grounding.citations import CitationStream
from backend.grounding.judge import Judge
from backend.grounding.run import RunState
from backend.question import HISTORY_EXCHANGES, Question, asks_about_the_text
from backend.retrieval import lexical
from backend.retrieval.search import BookCorpus, Retriever
from backend.retrieval.sentences import asks_definition

MAX_TURNS = 6
VAGUE_SHARE = 0.3  # a word found in this share of passages names no particular topic
VAGUE_TERMS = 2  # questions of at most this many such words are too broad to answer
VAGUE_MIN_PASSAGES = 50  # below this, word frequencies say little about specificity


@dataclass
class TextDelta:
    text: str


class AnswerEngine:
    def __init__(self, retriever: Retriever, models: ModelFactory, top_k: int = 6, judge: Judge | None = None):
        self.retriever = retriever
        self.models = models
        self.top_k = top_k
        self.judge = judge or Judge.load()

    @property
    def model_name(self) -> str:
        return self.models.name

    async def answer(self, question: Question) -> Answer:
        final: Answer | None = None
        async for event in self.stream(question):
            if isinstance(event, Answer):
                final = event
        assert final is not None
        return final

    async def stream(self, question: Question) -> AsyncIterator[TextDelta | Answer]:
        """Text deltas as the model writes them (citation markers already renumbered), then
        the grounded Answer, whose text is what the reader should finally see."""
        fixed = await asyncio.to_thread(self._fixed_answer, question)
        if fixed is not None:
            yield fixed
            return
        state = RunState(question=question, retriever=self.retriever, top_k=self.top_k)
        agent = Agent[RunState](
            name="Lectern",
            instructions=INSTRUCTIONS,
            tools=TOOLS,
            model=self.models.for_question(question),
        )
        citations = CitationStream(state.sources)
        raw = ""
        fed = 0  # how much of `raw` has gone through the citation stream
        # An LLM's words are shown as it writes them and its answer judged at the end (a declined
        # one is then replaced); the offline model writes its whole answer at once, so it is shown
        # only once judged, and a declined one is never shown.
        held: list[str] | None = None if self.models.writes_as_it_goes else []
        try:
            run = Runner.run_streamed(
                agent,
                _input(question),
                context=state,
                max_turns=MAX_TURNS,
                run_config=RunConfig(tracing_disabled=True),
            )
            async for event in run.stream_events():
                if isinstance(event, RawResponsesStreamEvent) and isinstance(
                    event.data, ResponseTextDeltaEvent
                ):
                    raw += event.data.delta
                    if _may_be_declining(raw):
                        continue
                    delta, fed = citations.feed(raw[fed:]), len(raw)
                    if delta and held is not None:
                        held.append(delta)
                    elif delta:
                        yield TextDelta(delta)
            if not fed:
                raw = str(run.final_output or raw)
        except MaxTurnsExceeded:
            raw = messages.NOT_IN_BOOK_MARKER
        except UserError as exc:  # the SDK wraps a failing tool; its cause is what went wrong
            raise (exc.__cause__ or exc) from None
        except RateLimitError as exc:
            retry = exc.response.headers.get("retry-after", "30")
            raise ModelUnavailable(
                "the answer model is rate-limited", rate_limited=True,
                retry_after=int(retry) if retry.isdigit() else 30,
            ) from exc
        except (APITimeoutError, APIConnectionError, APIStatusError) as exc:
            raise ModelUnavailable(f"the answer model failed: {type(exc).__name__}") from exc
        rest = [citations.feed(raw) if not fed and not declined(raw) else "", citations.finish()]
        for delta in filter(None, rest):
            if held is not None:
                held.append(delta)
            else:
                yield TextDelta(delta)
        answer = await asyncio.to_thread(ground, citations, raw, state, self.judge)  # the judge embeds the quote
        if held and answer.status != "not_found":
            yield TextDelta("".join(held))
        yield answer

    def _fixed_answer(self, question: Question) -> Answer | None:
        """The book's topics for a question too broad to answer; its outline for "What does
        this book cover?" or a question about "this page" when the page is unknown (a known
        page goes to the model, which reads it with get_lesson_metadata); None otherwise."""
        corpus = self.retriever.corpus
        if self._is_vague(question):
            return not_found(messages.VAGUE, topics(corpus.pages))
        scope = asks_about_the_text(question)
        if scope == "book" or (scope == "page" and not _known_page(corpus, question.lesson_id)):
            return book_overview(corpus)
        return None

    def _is_vague(self, question: Question) -> bool:
        """Only common words and no particular ask ("Tell me about robots"). "What is ROS 2?"
        asks for a definition, however often the book uses the name: the lesson that
        introduces it answers."""
        if question.selected_text or question.history or asks_definition(question.text):
            return False
        corpus = self.retriever.corpus
        terms = set(lexical.terms(question.text, compounds=False))
        total = len(corpus.chunks)
        if total < VAGUE_MIN_PASSAGES:
            return False
        return len(terms) <= VAGUE_TERMS and all(
            corpus.df.get(t, 0) / total >= VAGUE_SHARE for t in terms
        )


def _known_page(corpus: BookCorpus, lesson_id: str | None) -> bool:
    return lesson_id is not None and corpus.find_page(lesson_id) is not None


def _may_be_declining(raw: str) -> bool:
    """Holds back text that may still turn out to be the NOT_IN_BOOK marker."""
    text = raw.lstrip()
    marker = messages.NOT_IN_BOOK_MARKER
    return text.startswith(marker) or (len(text) < len(marker) and marker.startswith(text))


def _input(question: Question) -> list[TResponseInputItem]:
    history = question.history[-2 * HISTORY_EXCHANGES :]
    items: list[TResponseInputItem] = [
        {"role": turn.role, "content": turn.content} for turn in history  # type: ignore[misc]
    ]
    items.append({"role": "user", "content": user_message(question)})
    return items
