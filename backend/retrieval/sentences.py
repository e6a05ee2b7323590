"""Sentences of retrieved passages and how much of a question each one answers.

A passage can match a question as a whole while no single statement in it says what was asked
("the top walking speed of Digit"); scoring sentence windows catches that, and the same scores
pick the sentences of the offline model's extractive answer.
"""

import html
import math
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import groupby

from backend.retrieval import lexical

# A fenced block as CommonMark closes it: by a fence of its own character at least as long as the
# one that opened it (a block showing a ``` fence is opened by ````); in list items too.
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,}).*?^[ \t]*\1[`~]*[ \t]*$", re.MULTILINE | re.DOTALL)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_HEADING = re.compile(r"^#{1,6}\s+")
# "A) …", "(b) …": the choices of a multiple-choice question, most of them wrong on purpose.
_CHOICE = re.compile(r"^\s*\(?[A-Ha-h]\)\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9\"'(*`])")
# Emphasis as CommonMark reads it, outside code spans: a pair of delimiters around text that
# touches them ("**Never**", "*it*", "_pure functions_"; an underscore pair only at word edges,
# so snake_case names and a lone "_id" keep theirs). A lone one is a character ("any *, ~, or
# $ENV expansion", "2 * 3").
_STRONG = re.compile(r"(\*\*|__)(?=\S)((?:(?!\1).)+?)(?<=\S)\1")  # the nearest pair: no "**" inside
_STAR_EMPHASIS = re.compile(r"(?<![\w*\\])\*(?=[^\s*])([^*]*?)(?<=[^\s*])\*(?![\w*])")
_UNDERSCORE_EMPHASIS = re.compile(r"(?<![\w\\])_(?=\S)([^_\n]*?\S)_(?!\w)")
_HELD_SPAN = re.compile("\0(\\d+)\0")  # a code span held out while emphasis is taken off
_QUOTE_MARK = re.compile(r"^>\s*")
# A sentence that only sends the reader elsewhere ("See Deploying to Production for deployment
# options.", "If you haven't yet, take a look at the Middleware section …", "For more details,
# see …") names where an answer is; quoted, it answers nothing (its link is not shown either).
# One that goes on to say something ("See the timeout setting: it defaults to 30 seconds.") is
# kept, and "check out" points only for a purpose ("Check out validators for more details", not
# "Check out the main branch before you build.").
_POINTS_ELSEWHERE = re.compile(
    r"^(?:(?:if|for more) [^,:;]{0,60}, )?(?:please )?"
    r"(?:(?:see|take a look at|have a look at|refer to)\b|check out\b(?=[^:;]*\bfor\b))[^:;]*$",
    re.IGNORECASE,
)
# A code span (a run of backticks, its text, the same run) as the page shows it: its text, set
# in another font, without the backticks (so a quote reads, and matches the page's text, as "s1
# was moved into s2"); kept when its text would read as markup without them (`*args`, `[i]`,
# `<origin>`, `__init__`). Taken off after the sentences are split, which tell a sentence that
# opens with code by its backtick.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_READS_AS_MARKUP = re.compile(r"[*\[\]<>\\`]|^_|_$")
# The words questions open with.
QUESTION_WORD = (
    r"(?:what|how|which|why|when|where|who|whom|whose|is|are|was|were|does|do|did|can|could|"
    r"should|would|will|has|have)"
)
# "The driver remaps imu. What type is sent?": statements that set the scene for the question.
# "i.e." and "e.g." end no statement: "…, i.e. how many …" goes on asking.
_STATEMENT_END = re.compile(
    rf"(?<=\.)(?<!\bi\.e\.)(?<!\be\.g\.)\s+(?={QUESTION_WORD}\b)", re.IGNORECASE
)
# A sentence that introduces what follows ("Run the following command.", "as follows:",
# "…looks like this:"): it says nothing without it.
_INTRODUCES = re.compile(
    r"(?::|\b(?:the following|as follows|like this|like so)\b[^.!?]{0,40}\.|\bbelow\.)$", re.IGNORECASE
)
# A short example after such a sentence is what it introduces (a command, a setting): it is
# quoted with it. A long one is a program whose first lines say nothing on their own.
SHORT_EXAMPLE_LINES = 3
WINDOW = 2  # a claim and its explanation often span two sentences
ANSWER_TYPE_BONUS = 0.15
AMOUNT_MISSING = 0.05  # less evidence for "how many" in a window without a number
# The support of a window that cannot answer the question: none, below any book's answer threshold:
# "how much does it cost?" asks for a price, "on what date?" for a date, "(in kHz)" for a figure
# in kHz, and a window that gives no value of that kind does not answer it, however close its
# words come. A book that gives the value says so near its subject, so the best windows hold it.
CANNOT_ANSWER = 0.0
CODE_LINE_CHARS = 160  # longer code lines are logic, not a value worth quoting
# A code line worth quoting sets a value (`robot_radius: 0.4`, `queue_size=10`, `effort="30"`);
# definitions, imports, control flow and bare comments are not answers.
_VALUE_LINE = re.compile(
    r"^(?!(?:def|class|import|from|return|if|elif|else|for|while|with|try|except|print)\b|#|//)"
    r"[^:=]*\w[^:=]*(?::|=)\s*[^\s:=].*$"
)
# Questions that ask for an amount are answered by sentences with numbers in them.
_ASKS_QUANTITY = re.compile(
    r"\bhow (many|much|fast|often|long|far|big|large|small|accurate|high|heavy|quickly)\b|"
    r"\b(frequency|rate|speed|range|size|accuracy|resolution|latency|distance|weight|duration|"
    r"percentage|temperature|version|price|cost|year)\b",
    re.IGNORECASE,
)
# "How do I install it?" asks for a way of doing something. A window that neither speaks to the
# reader (you, we, let's), nor names a way (to …, by …, using …), nor says what can or must be
# done (a modal), nor shows code states a fact or a requirement ("ROS2 Humble installed"), not how.
_ASKS_WAY = re.compile(r"\bhow (?:do|can|could|should|would|might) (?:i|we|you|one)\b|\bhow to\b", re.IGNORECASE)
_GIVES_WAY = re.compile(
    r"\b(?:you|your|we|our|us|let's|can|could|should|must|need|needs|to|by|using)\b", re.IGNORECASE
)
_AMOUNT = re.compile(
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|"
    r"fifty|hundred|thousand|million|billion|dozen|half|once|twice|double|triple)\b",
    re.IGNORECASE,
)
# A price is asked for by "how much … cost" and "what is the price …", not by any mention of
# prices ("How does this option calculate the price?", "fetch the prices from the internet").
_ASKS_PRICE = re.compile(
    r"\bhow much (?:is|are|does|do|would|will)\b.{0,60}\bcost\b|\bwhat (?:does|do|would|will)\b.{0,60}\bcost\b|"
    r"\bwhat(?:['’]s|\s+is|\s+are|\s+was|\s+were|\s+would\s+be)?\s+(?:the\s+)?prices?\b",
    re.IGNORECASE,
)
_PRICE = re.compile(r"[$€£¥]\s?\d|\d\s?(?:usd|eur|gbp|dollars?|euros?)\b", re.IGNORECASE)
# "On what date …?", "which day …?" are answered by a calendar date; "what year …?", "when was it
# released?" by a year or a date. Not "when was it created/introduced?": in a manual that is as
# often a step ("when the store is created") or a version ("introduced in 1.9").
_ASKS_DATE = re.compile(r"\b(?:what|which)\s+(?:exact\s+|specific\s+)?(?:date|day)\b", re.IGNORECASE)
_ASKS_YEAR = re.compile(
    r"\b(?:what|which)\s+year\b|\bwhen\s+(?:exactly\s+)?(?:was|were|did|will)\b[^?]{0,80}?"
    r"\b(?:released?|launched|published|founded|announced)\b",
    re.IGNORECASE,
)
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_DATE = re.compile(
    rf"\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b|"
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b",
    re.IGNORECASE,
)
_YEAR = re.compile(rf"\b(?:1[89]|20)\d{{2}}\b|{_DATE.pattern}", re.IGNORECASE)
# Units a question can ask an amount in ("in kHz", "how many milliseconds"), each with the
# spellings a book may use for it.
_UNITS = [
    r"hz|hertz", r"khz|kilohertz", r"mhz|megahertz", r"ghz|gigahertz", r"fps|frames per second",
    r"ns|nanoseconds?", r"µs|microseconds?", r"ms|milliseconds?", r"s|secs?|seconds?",
    r"min|minutes?", r"h|hrs?|hours?", r"days?", r"weeks?",
    r"mm|millimet(?:er|re)s?", r"cm|centimet(?:er|re)s?", r"m|met(?:er|re)s?",
    r"km|kilomet(?:er|re)s?",
    r"kg|kilograms?", r"g|grams?", r"nm|newton[- ]?met(?:er|re)s?", r"n|newtons?",
    r"°|deg|degrees?", r"rad|radians?",
    r"bytes?", r"kb|kilobytes?", r"mb|megabytes?", r"gb|gigabytes?",
    r"w|watts?", r"v|volts?", r"%|percent",
]
_ASKS_UNIT = re.compile(
    rf"\b(?:in|how many)\s+(?P<unit>{'|'.join(_UNITS)})(?![\w°%])", re.IGNORECASE
)
# "What is X?" is answered by a sentence that says what X is.
_ASKS_DEFINITION = re.compile(r"^\s*(what|who) (is|are) (an? |the )?(?!.*\bof\b)[\w\s'-]{1,40}\??\s*$", re.IGNORECASE)
_DEFINES = re.compile(r"\b(is|are) (a|an|the)\b|\brefers? to\b|\bmeans\b", re.IGNORECASE)
# "Define X", "What does X mean?", "definition of X": the subject follows the asking words.
_ASKS_MEANING = re.compile(
    r"^\s*(?:define|what(?: is|'s) (?:meant by|the (?:definition|meaning) of)|"
    r"(?:the )?(?:definition|meaning) of|what does)\s+(?P<subject>.+?)(?:\s+mean)?\s*[?.]?\s*$",
    re.IGNORECASE,
)
_WHAT_IS = re.compile(
    r"^\s*(?:what|who)(?: is|'s| are) (?:an? |the )?(?P<subject>.+?)\s*\??\s*$", re.IGNORECASE
)
_QUALIFIED = re.compile(r"\s+(?:of|in|for|on|with|from|at|by|under|inside)\s+", re.IGNORECASE)
# A glossary entry or definition opens with the term it defines: "Domain Randomization: The
# practice of …", "A node is …".
_DEFINED_TERM = re.compile(
    r"^(?:an? |the )?(?P<term>[^:.;,()]{2,60}?)\s*(?::|\(|—| is | are | refers to | means )",
    re.IGNORECASE,
)
# "What does IMU stand for?" is answered by the words whose initials spell it.
_ASKS_EXPANSION = re.compile(
    r"\b(stands?|standing) for\b|\bacronym|\babbreviat|\bshort for\b|\bfull (form|name)\b|"
    r"^\s*what (does|is) (the )?[A-Z][A-Za-z0-9]*[A-Z]\w* (mean|acronym|abbreviation)\b",
    re.IGNORECASE,
)
_ACRONYM = re.compile(r"\b[A-Za-z]?[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*\b")
# The word an expansion question asks about, in the order tried: "what does IMU stand for",
# "what is urdf short for", "the full form of VLA", "what is the CLIP acronym".
_EXPANDED_WORD = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"([\w.-]+)\s+(?:stands?|standing|is\s+short|short)\s+for\b",
        r"\b(?:full\s+(?:form|name)|acronym|abbreviation)\s+(?:of|for)\s+(?:the\s+)?([\w.-]+)",
        r"^\s*what\s+(?:does|is)\s+(?:the\s+)?(?!the\b)([\w.-]+)\s+(?:mean|acronym|abbreviation)\b",
    )
)
# Words that may spell out an acronym, what may separate them, and the short words skipped.
_SPELLING_START = re.compile(r"\b[A-Z][a-z]+(?=[\s-]+(?:[A-Z][a-z]+|[a-z]{2,3})\b)")
_NEXT_WORD = re.compile(r"([\s-]+)([A-Za-z][a-z]*)\b")
_CONNECTORS = frozenset({"of", "and", "for", "the", "to", "in", "on"})
MAX_INITIALS = 10


@dataclass
class Sentence:
    chunk_id: str
    index: int
    text: str
    terms: frozenset[str]
    code: bool = False  # a line of a code or configuration example
    shows_code: bool = False  # prose with code spans (`rclpy.spin()`), shown without their marks
    example: tuple[str, ...] = ()  # the lines of the short example it introduces, quoted with it

    @property
    def leads_in(self) -> bool:
        """"Configure the bus as follows:" says nothing without what follows it."""
        return not self.code and self.text.endswith(":")

    @property
    def shown(self) -> str:
        """As quoted in an answer: a code line as inline code; a sentence that introduces a
        short example, then the example as the code block the page shows."""
        if self.code:
            return f"`{self.text.replace('`', '')}`"
        if self.example:
            return f"{self.text.removesuffix(' ' + _inline(self.example))}{code_block(self.example)}"
        return self.text


@dataclass
class Window:
    """A run of up to WINDOW consecutive sentences of one passage."""

    chunk_id: str
    sentences: list[Sentence]
    lexical: float  # IDF-weighted share of the query's terms the window contains
    semantic: float = 0.0  # its passage's similarity, normalised against the book (search.py)
    # The same share of the reader's own words alone, for a question that leans on earlier
    # words (a follow-up); None when the words are all the reader's, or none are ("Why?").
    own: float | None = None

    @property
    def text(self) -> str:
        """As quoted in an answer: its sentences, consecutive code lines as one code block."""
        shown = []
        for is_code, run in groupby(self.sentences, key=lambda sentence: sentence.code):
            sentences = list(run)
            if is_code and len(sentences) > 1:
                shown.append(code_block([sentence.text for sentence in sentences]))
            else:
                shown += [sentence.shown for sentence in sentences]
        return " ".join(shown).strip()

    @property
    def code(self) -> bool:
        return self.sentences[0].code

    @property
    def support(self) -> float:
        """The geometric mean of the two measures: an answer both says the question's words
        and is about what it asks. Their plain mean let one make up for the other, so a word
        that happens to recur ("Cash: money … under your mattress" for "How do I choose a
        good mattress?", lexical 0.72, semantic 0.07) counted as much as a passage about the
        question, and such chance matches set a book's answerable level high."""
        return math.sqrt(max(self.lexical, 0.0) * max(self.semantic, 0.0))

    @property
    def closeness(self) -> float:
        """How close the window comes to the question, for choosing among windows already taken
        as evidence: the plain mean of the two measures, since a sentence that holds all of the
        question's words is the better quote even in a passage a little less similar overall
        (a section's definition, in the chunk the section's later sentences outscore)."""
        return (self.lexical + self.semantic) / 2

    @property
    def gives_amount(self) -> bool:
        return _AMOUNT.search(self.text) is not None

    @property
    def gives_way(self) -> bool:
        return any(s.code or s.shows_code for s in self.sentences) or _GIVES_WAY.search(self.text) is not None

    @property
    def terms(self) -> frozenset[str]:
        return frozenset().union(*(s.terms for s in self.sentences))

    def evidence(self, question: str) -> float:
        """Support as evidence that the book answers the question: a window without any number
        is weaker evidence for a question that asks for an amount, and one without a value of
        the asked kind (a price, a date, a figure in the asked unit) cannot answer it."""
        kind = _kind_of_value(question)
        if kind is not None and kind.search(self.text) is None:
            return CANNOT_ANSWER
        if _ASKS_WAY.search(question) and not self.gives_way:
            return CANNOT_ANSWER
        if _ASKS_QUANTITY.search(question) and not self.gives_amount:
            return self.support - AMOUNT_MISSING
        return self.support

    def answer_fit(self, question: str, own_words: bool = False) -> float:
        """Closeness, plus a bonus when the window has the kind of statement the question asks
        for (a number for "how many", a definition for "what is"); used to pick sentences.
        With `own_words`, to choose among a follow-up's windows, closeness counts the reader's
        own words only: the earlier words it leans on found the passage and count in its
        evidence, the reader's choose the sentence ("where is that file kept by default?" after
        a question about the command history: the sentence that says where, not the one that
        says most about the history). Without, the fit is on the scale of the search's support
        (as a model is told it)."""
        fit = self.closeness if not own_words or self.own is None else (self.own + self.semantic) / 2
        if _ASKS_QUANTITY.search(question) and self.gives_amount:
            fit += ANSWER_TYPE_BONUS
        if (_ASKS_DEFINITION.search(question) and _says_what_it_is(question, self.sentences)) or _defines_subject(
            question, self.sentences[0].text
        ):
            fit += ANSWER_TYPE_BONUS
        if any(spelled_out(acronym, self.text) for acronym in _asked_acronyms(question)):
            fit += ANSWER_TYPE_BONUS
        if _ASKS_WAY.search(question) and not self.gives_way:
            fit -= ANSWER_TYPE_BONUS
        return fit


def states_without_way(question: str, asked: Sequence[str], windows: Sequence[Window]) -> bool:
    """For a how-to: a window that holds every word the reader asks with but gives no way
    ("ROS2 Humble installed (installation guide)" among prerequisites, for "How do I install
    ROS2 on Windows?") says the thing is so, not how to do it. When no window that gives a way
    holds all of those words, the ways the book gives are ways to something else (setup lines
    whose `install/setup.bash` is a folder, not the asking), and it does not answer."""
    words = frozenset(asked)
    if not words or not _ASKS_WAY.search(question):
        return False
    ways = frozenset().union(*(w.terms for w in windows if w.gives_way))
    return not words <= ways and any(not w.gives_way and words <= w.terms for w in windows)


def scene_and_question(text: str) -> tuple[list[str], str]:
    """The statements that set the scene ("Our docstrings carry Sphinx fields."), then what is
    asked. Of text in several lines, the question is on the last line that asks one (holds a
    question mark), else on the last line; the lines around it set the scene (an error's
    output pasted after "Why does this fail?")."""
    lines = text.splitlines() or [text]
    asking = max((i for i, line in enumerate(lines) if "?" in line), default=len(lines) - 1)
    before, after = " ".join(lines[:asking]), " ".join(lines[asking + 1 :])
    *statements, asked = _STATEMENT_END.split(lines[asking])
    return [*(_STATEMENT_END.split(before) if before else []), *statements, *([after] if after else [])], asked


def asks_definition(question: str) -> bool:
    """"What is X?", "Define X", "What does X mean?": a question answered by what X is."""
    return bool(_ASKS_DEFINITION.search(question) or _ASKS_MEANING.match(question))


@lru_cache(maxsize=256)  # asked once per window of every search, and the same each time
def _kind_of_value(question: str) -> re.Pattern[str] | None:
    """What a value of the kind the question asks for looks like: a price, a date, a year, or
    a figure in the unit it names; None when it asks for no particular kind."""
    if _ASKS_PRICE.search(question):
        return _PRICE
    if _ASKS_DATE.search(question):
        return _DATE
    if _ASKS_YEAR.search(question):
        return _YEAR
    if asked := _ASKS_UNIT.search(question):
        unit = next(u for u in _UNITS if re.fullmatch(u, asked.group("unit"), re.IGNORECASE))
        return re.compile(rf"\d\s?(?:{unit})(?![a-z])", re.IGNORECASE)
    return None


def _says_what_it_is(question: str, sentences: Sequence[Sentence]) -> bool:
    """Whether a sentence says what the question's subject is: "is a", "refers to" after the
    word the subject names ("In Redux, a reducer is a function"), not after another ("This is
    the basic structure a reducer uses")."""
    named = _subject_named(question)
    return named is not None and any(
        named in lexical.terms(sentence.text[: said.start()], compounds=False)
        for sentence in sentences
        for said in _DEFINES.finditer(sentence.text)
    )


@lru_cache(maxsize=256)  # asked once per window of every search, and the same each time
def _subject_named(question: str) -> str | None:
    """The term a "what is" question's subject names: its last before "of", "in", "for" …
    ("a reducer in redux": reducer; "the ROS node": node)."""
    asked = _WHAT_IS.match(question)
    if asked is None:
        return None
    named = _QUALIFIED.split(asked.group("subject"), maxsplit=1)[0]
    terms = lexical.terms(named, compounds=False)
    return terms[-1] if terms else None


def _defines_subject(question: str, sentence: str) -> bool:
    """Whether a definition question's sentence opens by defining its subject: the term before
    the colon (or "is") is the subject's first words ("domain randomization in Isaac Sim")."""
    asked = _ASKS_MEANING.match(question) or _WHAT_IS.match(question)
    defined = _DEFINED_TERM.match(sentence)
    if not asked or not defined:
        return False
    subject = lexical.terms(asked.group("subject"), compounds=False)
    term = lexical.terms(defined.group("term"), compounds=False)
    return bool(term) and term == subject[: len(term)]


@lru_cache(maxsize=256)  # asked once per window of every search, and the same each time
def _asked_acronyms(question: str) -> tuple[str, ...]:
    """The acronyms an expansion question asks about: the word it asks to have expanded, in
    whatever case the reader typed it ("what does imu stand for"), else those written as
    acronyms."""
    if not _ASKS_EXPANSION.search(question):
        return ()
    for pattern in _EXPANDED_WORD:
        if asked := pattern.search(question):
            return (asked.group(1).upper(),)
    return tuple(_ACRONYM.findall(question))


def spelled_out(acronym: str, text: str) -> bool:
    """Whether the text writes the acronym out: "Inertial Measurement Unit" for IMU, "Simultaneous
    Localization and Mapping" for SLAM (its capitals give the initials: "GEMs" → G, E, M)."""
    return initials(acronym) in initialisms(text)


def initials(acronym: str) -> str:
    """The letters a spelled-out acronym's words begin with: its capitals (GEMs → GEM)."""
    return "".join(c for c in acronym if c.isupper())


def initialisms(text: str) -> set[str]:
    """The `initials` of every acronym the text spells out: two or more consecutive words, the
    first capitalised, each next one capitalised or a short lowercase word ("and" gives the A
    of SLAM), with at most one connector skipped between two (DoD: Department of Defense)."""
    found: set[str] = set()
    for first in _SPELLING_START.finditer(text):
        paths = [(first.end(), first.group()[0])]
        while paths:
            end, letters = paths.pop()
            following = _NEXT_WORD.match(text, end)
            if following is None or len(letters) == MAX_INITIALS:
                continue
            steps = [following]
            if following.group(2) in _CONNECTORS:  # skipped, when a space follows it
                after = _NEXT_WORD.match(text, following.end())
                steps += [after] if after and after.group(1).isspace() else []
            for step in steps:
                word = step.group(2)
                if word[0].isupper() and len(word) > 1 or word.islower() and 2 <= len(word) <= 3:
                    spelled = letters + word[0].upper()
                    found.add(spelled)
                    paths.append((step.end(), spelled))
    return found


@lru_cache(maxsize=4096)  # every search splits its best passages again; the result is read-only
def split_sentences(chunk_id: str, markdown: str) -> tuple[Sentence, ...]:
    """Prose sentences, list items, table rows and code lines of a passage, in page order;
    headings are left out. A value a book gives only in an example (`robot_radius: 0.4`) is
    still something a reader may ask about."""
    sentences: list[Sentence] = []

    def add(text: str, code: bool = False) -> bool:
        shown = text if code else _CODE_SPAN.sub(_as_shown, text)
        if not code and _POINTS_ELSEWHERE.match(shown):
            return False  # "See Deploying to Production for …" sends the reader elsewhere: no answer
        terms = frozenset(lexical.terms(shown, compounds=False))
        if len(shown) > 3 and terms and not shown.endswith("?"):  # a question answers nothing
            sentences.append(Sentence(chunk_id, len(sentences), shown, terms, code, not code and "`" in text))
            return True
        return False

    position = 0
    for fence in _FENCE.finditer(markdown):
        added = [add(text) for text in _prose(markdown[position : fence.start()])]
        as_written = textwrap.dedent("\n".join(fence.group(0).splitlines()[1:-1])).splitlines()
        code_lines = [line.strip() for line in as_written]
        example = [line.rstrip() for line in as_written if line.strip(" \t`")]  # indented as shown
        # only the sentence right before the example introduces it
        carried: frozenset[str] = frozenset()
        if added and added[-1] and _introduces_example(sentences[-1], example):
            sentences[-1] = _with_example(sentences[-1], example)
            carried = frozenset(line.strip() for line in example)  # quoted with their lead-in, not again alone
        for line in code_lines:
            if _VALUE_LINE.match(line) and len(line) <= CODE_LINE_CHARS and line not in carried:
                add(line, code=True)
        position = fence.end()
    for text in _prose(markdown[position:]):
        add(text)
    return tuple(sentences)


def introduces(text: str) -> bool:
    """Whether the text ends by introducing what follows ("… as follows:", "Run the following
    command.")."""
    return _INTRODUCES.search(text) is not None


def _introduces_example(sentence: Sentence, lines: list[str]) -> bool:
    """Whether the sentence introduces the example after it, and that example is short."""
    short = 0 < len(lines) <= SHORT_EXAMPLE_LINES and all(len(line) <= CODE_LINE_CHARS for line in lines)
    return short and introduces(sentence.text)


def code_block(lines: Sequence[str]) -> str:
    """Lines of code as a fenced block, on lines of their own in the text around it."""
    return "\n```\n" + "\n".join(lines) + "\n```\n"


def _inline(lines: Sequence[str]) -> str:
    return " ".join(f"`{line.replace('`', '')}`" for line in lines)


def _with_example(sentence: Sentence, lines: list[str]) -> Sentence:
    """The sentence followed by the example it introduces (inline, for its words to count)."""
    text = f"{sentence.text} {_inline(lines)}"
    terms = frozenset(lexical.terms(text, compounds=False))
    return Sentence(sentence.chunk_id, sentence.index, text, terms, shows_code=True, example=tuple(lines))


def _as_shown(span: re.Match[str]) -> str:
    return span.group(0) if _READS_AS_MARKUP.search(span.group(2)) else span.group(2).strip()


def _without_emphasis(piece: str) -> str:
    """The emphasis marks of prose taken off, code spans left as written (`__init__`, `*args`);
    a pair may hold a code span ("**`createSlice`** returns …")."""
    spans: list[str] = []

    def hold(span: re.Match[str]) -> str:
        spans.append(span.group(0))
        return f"\0{len(spans) - 1}\0"

    prose = _STRONG.sub(r"\2", _CODE_SPAN.sub(hold, piece))  # code spans held out, in order
    prose = _UNDERSCORE_EMPHASIS.sub(r"\1", _STAR_EMPHASIS.sub(r"\1", prose))
    return _HELD_SPAN.sub(lambda held: spans[int(held.group(1))], prose)


def _prose(markdown: str) -> list[str]:
    pieces: list[str] = []
    for block in re.split(r"\n\s*\n", markdown):
        lines = [line for line in block.splitlines() if line.strip()]
        if not lines or all(_HEADING.match(line) for line in lines):
            continue
        if all(line.lstrip().startswith("|") for line in lines):
            header = _cells(lines[0])
            for row in lines[1:]:
                if not _TABLE_RULE.match(row):
                    cells = _cells(row)
                    pairs = [f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=False)]  # ragged rows
                    pieces.append("; ".join(p for p in pairs if p.strip(": ")))
            continue
        started = False  # a block's lines go on its own first piece, never on the block before
        for line in lines:
            if _HEADING.match(line) or _CHOICE.match(_BULLET.sub("", line)):
                continue
            if not started or _BULLET.match(line) or line.lstrip().startswith(">"):
                pieces.append(_BULLET.sub("", line))
                started = True
            else:
                pieces[-1] = f"{pieces[-1]} {line.strip()}"
    # Prose as the page shows it: "&lt;0.7" is rendered "<0.7" (code keeps its characters).
    return [
        text.strip()
        for piece in pieces
        for text in _SENTENCE_END.split(html.unescape(_without_emphasis(_QUOTE_MARK.sub("", piece))).strip())
    ]


def sentence_texts(text: str) -> list[str]:
    """The sentences of plain text (a window's text, a reader's selection)."""
    return [t.strip() for t in _SENTENCE_END.split(" ".join(text.split())) if t.strip()]


def rank_windows(
    query_terms: list[str],
    sentences: Sequence[Sentence],
    idf: Callable[[str], float],
    limit: int,
    given: Mapping[str, frozenset[str]] | None = None,
) -> list[Window]:
    """The `limit` windows that contain most of the query's (IDF-weighted) terms, counting the
    terms `given` by their passage (by chunk id) as contained, then the best window of each
    passage none of those is from: when many windows hold every word of a short question ("What
    does IMU stand for?"), ties would otherwise leave out the later passages, and the one that
    spells the answer out with them."""
    weights = lexical.Weights(query_terms, idf)
    if weights.total <= 0:
        return []
    windows: list[Window] = []
    for i, first in enumerate(sentences):
        members = [
            s for s in sentences[i : i + WINDOW]
            if (s.chunk_id, s.code) == (first.chunk_id, first.code) and (s is first or s.text != first.text)
        ]
        if members[-1].leads_in:
            members.pop()
        if not members:  # a lone lead-in says nothing without what follows it
            continue
        present = frozenset().union(*(s.terms for s in members), (given or {}).get(first.chunk_id, ()))
        windows.append(Window(first.chunk_id, members, weights.share(present)))
    # Of two windows with the same words, the one that opens with them goes on to explain.
    windows.sort(key=lambda w: (w.lexical, weights.share(w.sentences[0].terms)), reverse=True)
    kept = windows[:limit]
    offered = {w.chunk_id for w in kept}
    for window in windows[limit:]:
        if window.chunk_id not in offered:
            offered.add(window.chunk_id)
            kept.append(window)
    return kept


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]
