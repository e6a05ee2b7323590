"""Sentences of a passage, the windows quoted from them, and how overlapping windows are kept apart."""

import numpy as np
import pytest

from backend.retrieval import lexical
from backend.retrieval.search import (
    EVIDENCE_WINDOWS,
    BookCorpus,
    _distinct,
    _past_the_readers_words,
    _words,
    _written_in,
)
from backend.retrieval.sentences import (
    CANNOT_ANSWER,
    Sentence,
    Window,
    rank_windows,
    spelled_out,
    split_sentences,
)

PASSAGE = """The costmap is widened for walking robots.

```yaml
# Humanoid costmap
local_costmap:
  resolution: 0.1
  robot_radius: 0.4  # accounts for leg swing
global_costmap:
  robot_radius: 0.4  # accounts for leg swing
```

```python
import rclpy
def publish(self):
    self.timer = self.create_timer(2.0, self.publish)
```

The planner then checks each footstep."""


def test_code_lines_that_set_a_value_are_sentences_in_page_order() -> None:
    sentences = split_sentences("c1", PASSAGE)
    assert [(s.text, s.code) for s in sentences] == [
        ("The costmap is widened for walking robots.", False),
        ("resolution: 0.1", True),
        ("robot_radius: 0.4  # accounts for leg swing", True),
        ("robot_radius: 0.4  # accounts for leg swing", True),
        ("self.timer = self.create_timer(2.0, self.publish)", True),
        ("The planner then checks each footstep.", False),
    ]
    assert sentences[1].shown == "`resolution: 0.1`"  # quoted as inline code
    assert sentences[0].shown == sentences[0].text


def test_a_code_example_inside_a_list_item_is_code() -> None:
    sentences = split_sentences("c1", "- Frozen classes refuse changes:\n\n  ```python\n  print(c)\n  queue_size = 10\n  ```\n\n- They hash.")
    assert [(s.text, s.code) for s in sentences] == [
        ("Frozen classes refuse changes: `print(c)` `queue_size = 10`", False),  # its short example,
        ("They hash.", False),  # whose value line is not a sentence a second time
    ]


def test_a_sentence_that_introduces_a_short_example_is_quoted_with_it() -> None:
    passage = (
        "Then configure the half-installed packages with the following command.\n\n```\n"
        "# dpkg --configure -a\n```\n\nA program of many lines looks like this:\n\n```\n"
        + "".join(f"step_{n} = {n}\n" for n in range(4)) + "```\n\nThe command also says what it did."
    )
    sentences = split_sentences("c1", passage)
    assert sentences[0].text == (
        "Then configure the half-installed packages with the following command. `# dpkg --configure -a`"
    )
    assert sentences[0].example == ("# dpkg --configure -a",) and "dpkg" in sentences[0].terms
    long_example = next(s for s in sentences if s.text.startswith("A program"))
    assert long_example.text == "A program of many lines looks like this:" and not long_example.example
    assert sentences[-1].text == "The command also says what it did." and not sentences[-1].example


def test_code_is_quoted_as_the_code_block_the_page_shows() -> None:
    passage = "The state of a counter app might look like this:\n\n```js\n{\n    counter: 10\n}\n```\n\nIt grows."
    lead_in = split_sentences("c1", passage)[0]
    assert lead_in.text == "The state of a counter app might look like this: `{` `    counter: 10` `}`"  # its words count
    assert lead_in.shown == "The state of a counter app might look like this:\n```\n{\n    counter: 10\n}\n```\n"
    values = [s for s in split_sentences("c1", PASSAGE) if s.code][:2]
    assert Window("c1", values, 1.0).text == "```\nresolution: 0.1\nrobot_radius: 0.4  # accounts for leg swing\n```"
    assert Window("c1", values[:1], 1.0).text == "`resolution: 0.1`"  # one value line stays in its sentence


def test_windows_do_not_mix_prose_and_code() -> None:
    sentences = split_sentences("c1", PASSAGE)
    windows = rank_windows(lexical.terms("planner footstep timer"), sentences, lambda _: 1.0, 20)
    for window in windows:
        assert len({s.code for s in window.sentences}) == 1
    assert windows[0].text == "The planner then checks each footstep."


def test_every_passage_offers_its_best_window_beyond_the_limit() -> None:
    """Many windows of the first passage hold the question's one word: the second passage, which
    spells the acronym out, still offers its best window."""
    first = split_sentences("a", " ".join(f"The IMU reading number {n} drifts." for n in range(8)))
    second = split_sentences("b", "An IMU (Inertial Measurement Unit) measures motion. It has no camera.")
    windows = rank_windows(lexical.terms("What does IMU stand for?"), first + second, lambda _: 1.0, 4)
    assert [w.chunk_id for w in windows[:4]] == ["a"] * 4
    assert [w.chunk_id for w in windows[4:]] == ["b"]
    assert windows[4].text.startswith("An IMU (Inertial Measurement Unit)")


def test_evidence_keeps_windows_that_share_no_sentence_or_repeated_line() -> None:
    sentences = split_sentences("c1", PASSAGE)
    windows = rank_windows(lexical.terms("robot radius leg swing"), sentences, lambda _: 1.0, 20)
    kept = _distinct(windows)
    texts = [s.text for w in kept for s in w.sentences]
    assert texts.count("robot_radius: 0.4  # accounts for leg swing") == 1
    assert len(kept) <= EVIDENCE_WINDOWS
    assert kept[0].sentences[-1].text.startswith("robot_radius")


def test_chat_fillers_are_not_search_terms() -> None:
    assert lexical.terms("hey, so what's basically the point of QoS? I just want to get it") == \
        lexical.terms("point of QoS")
    assert lexical.terms("my model is a tiny speck lol, idk what i messed up tbh") == \
        lexical.terms("model is a tiny speck, what messed up")


def test_questions_and_quiz_choices_are_never_quoted() -> None:
    quiz = """What is the primary role of ROS2?

A) Operating system that replaces Linux
- B) Middleware that enables distributed communication
(c) A programming language

**Explanation**: ROS2 is middleware. Why does it matter? It decouples nodes."""
    assert [s.text for s in split_sentences("q", quiz)] == [
        "Explanation: ROS2 is middleware.", "It decouples nodes."
    ]


def test_a_sentence_that_only_points_elsewhere_is_never_quoted() -> None:
    text = ("Run the server with gunicorn. See Deploying to Production for the options. If you "
            "haven't yet, take a look at the Middleware section. You will see a new tab. For more "
            "details, see the API page. See the timeout setting: it defaults to 30 seconds. Check "
            "out the main branch before you build. Check out validators for more details.")
    assert [s.text for s in split_sentences("p", text)] == [
        "Run the server with gunicorn.", "You will see a new tab.",
        "See the timeout setting: it defaults to 30 seconds.", "Check out the main branch before you build.",
    ]


def test_a_lone_lead_in_is_not_a_window() -> None:
    text = ("Here is a minimal URDF for an arm:\n\n```xml\n<link>\n<visual>\n"
            "<cylinder length=\"0.3\" radius=\"0.05\"/>\n</visual>\n</link>\n```")  # too long to go with it
    windows = rank_windows(lexical.terms("URDF arm cylinder"), split_sentences("u", text), lambda _: 1.0, 5)
    assert [w.text for w in windows] == ['`<cylinder length="0.3" radius="0.05"/>`']


@pytest.mark.parametrize(
    ("question", "text", "fits"),
    [
        ("What does IMU stand for?", "An IMU (Inertial Measurement Unit) measures motion.", True),
        ("What does SLAM stand for?", "SLAM (Simultaneous Localization and Mapping) builds maps.", True),
        ("What is the CLIP acronym?", "CLIP (Contrastive Language-Image Pretraining) links words.", True),
        ("What does IMU stand for?", "The IMU measures motion in a humanoid's torso.", False),
        # Readers type acronyms in lower case too.
        ("what does slam stand for", "Depth enables Simultaneous Localization and Mapping (SLAM).", True),
        ("what is clip short for", "Models like CLIP (Contrastive Language-Image Pretraining) help.", True),
        ("what does slam stand for", "Depth sensors are used by SLAM to build maps.", False),
        ("what does pid stand for in ROS control", "Tune the Proportional Integral Derivative (PID) gains.", True),
        # the word asked about is expanded, not the others of the question
        ("what does idempotent mean in a rest api", "An Application Programming Interface (API) serves.", False),
    ],
)
def test_a_question_about_an_acronym_prefers_its_expansion(question: str, text: str, fits: bool) -> None:
    window = Window("c", split_sentences("c", text), lexical=0.5)
    assert (window.answer_fit(question) > window.closeness) is fits


@pytest.mark.parametrize(
    ("question", "text", "fits"),
    [
        ("Define domain randomization as used in Isaac Sim.",
         "- **Domain Randomization**: The practice of varying environmental parameters.", True),
        ("What is the step field in an image message for?", "- **step**: The number of bytes per row.", True),
        ("What does QoS mean?", "QoS (Quality of Service) sets delivery guarantees per topic.", True),
        ("what's a node", "A node is an independent process with one job.", True),
        ("Define domain randomization.", "- **Isaac Sim**: NVIDIA's simulator, with domain randomization.", False),
        ("How does domain randomization help?", "- **Domain Randomization**: Varying parameters.", False),
        # Said of the subject further into a sentence, but not of something else near it.
        ("What is a reducer?", "Many years ago, a reducer was named. In Redux, a reducer is a function.", True),
        ("What is a reducer?", "This is the basic structure that a typical reducer uses.", False),
        ("What is a reducer?", "A reducer was added. This is the basic structure that a reducer uses.", False),
        ("What is a reducer?", "The store is the source of truth, and a reducer is a pure function.", True),
        ("What is a ROS node?", "Every robot runs many. A node is a process with one job.", True),
    ],
)
def test_a_definition_question_prefers_the_sentence_that_defines_its_subject(
    question: str, text: str, fits: bool
) -> None:
    window = Window("c", split_sentences("c", text), lexical=0.5)
    assert (window.answer_fit(question) > window.closeness) is fits


def test_a_paragraph_after_a_list_is_a_sentence_of_its_own() -> None:
    text = "- **Mass**: Kilograms\n- **Force**: Newtons\n\nGetting units wrong is common. Check them."
    assert [s.text for s in split_sentences("u", text)] == [
        "Mass: Kilograms", "Force: Newtons", "Getting units wrong is common.", "Check them."
    ]


def test_a_paragraph_under_a_heading_is_a_sentence_of_its_own() -> None:
    text = "The first section ends here.\n\n## Second\nIts first line\ngoes on here."
    assert [s.text for s in split_sentences("h", text)] == ["The first section ends here.", "Its first line goes on here."]
    assert [s.text for s in split_sentences("h", "## Alone\nA line under it.")] == ["A line under it."]


def test_a_fence_that_shows_a_fence_is_closed_by_its_own_length() -> None:
    text = ("A block that shows a fence is opened by four backticks.\n\n````markdown\n# A code block\n```\n"
            "x = 1\n```\n````\n\nThe inner fence is then shown as written.")
    sentences = split_sentences("f", text)
    assert [(s.text, s.code) for s in sentences] == [
        ("A block that shows a fence is opened by four backticks.", False),
        ("x = 1", True),
        ("The inner fence is then shown as written.", False),
    ]


def test_a_window_does_not_end_on_a_lead_in() -> None:
    text = "Units are fixed in URDF. Coordinate frame conventions:\n\n- X: forward"
    windows = rank_windows(lexical.terms("units fixed"), split_sentences("u", text), lambda _: 1.0, 5)
    assert windows[0].text == "Units are fixed in URDF."


def test_a_window_without_a_number_is_weaker_evidence_for_a_question_that_asks_for_one() -> None:
    words = Window("c", split_sentences("c", "Audio is resampled to a common rate first."), lexical=0.5)
    figure = Window("c", split_sentences("c", "Audio is resampled to 16 kHz, about sixteen thousand samples."), lexical=0.5)
    for question in ("What sample rate does Whisper expect?", "Which Isaac Sim version is used?"):
        assert words.evidence(question) < words.support
        assert figure.evidence(question) == figure.support
    assert words.evidence("Why is audio resampled?") == words.support


@pytest.mark.parametrize(
    ("question", "gives", "lacks"),
    [
        ("How much does the H1 robot cost?", "The H1 sells for $90,000.", "The H1 is 180 cm tall and weighs 47 kg."),
        ("What's the price of a RealSense D435?", "A D435 is about 300 USD.", "A D435 has a 10 m range."),
        ("What sample rate (in kHz) does Whisper need?", "Audio is resampled to 16 kHz.", "Audio is resampled to 16000 samples."),
        ("How many milliseconds does depth processing take?", "It takes 200 ms.", "It takes 0.2 s on a CPU."),
        ("How many nanoseconds does a frozen instance cost?", "It takes 425 ns.", "It is 1.2 times slower."),
        ("How many bytes does a slotted instance save?", "It saves 48 bytes.", "It saves half the memory."),
        ("On what date was version 2.0 released?", "Version 2.0 shipped on December 4, 2023.",
         "Version 2.0 has been available since 2023."),
        ("What exact date did the beta start?", "The beta started 2024-03-01.", "The beta started in spring."),
        ("When was Redux Toolkit first released?", "Redux Toolkit has been available since 2019.",
         "Redux Toolkit was released after Redux 4."),
        ("What year was ROS 2 introduced?", "ROS 2 was introduced in 2017.", "ROS 2 was introduced after ROS 1."),
    ],
)
def test_a_window_without_a_value_of_the_asked_kind_cannot_answer(question: str, gives: str, lacks: str) -> None:
    with_it = Window("c", split_sentences("c", gives), lexical=0.9, semantic=0.9)
    without = Window("c", split_sentences("c", lacks), lexical=0.9, semantic=0.9)
    assert with_it.evidence(question) == with_it.support
    assert without.evidence(question) == CANNOT_ANSWER < without.support
    assert without.evidence("What is the computational cost of stereo matching?") > CANNOT_ANSWER  # no price
    assert without.evidence("When is the costmap updated?") == without.support  # asks no date
    for asks_no_price in ("How does this option calculate the price?", "Can it fetch the prices online?"):
        assert without.evidence(asks_no_price) > CANNOT_ANSWER
    for asks_price in ("What’s the price of the Pro plan?", "What does the Pro plan cost?"):
        assert without.evidence(asks_price) == CANNOT_ANSWER
    assert without.evidence("When was the store created?") == without.support  # a step, as often
    # "us" and "B" are not units when a question names a region, a language or a tree.
    for asks_no_unit in ("Which services run in us-east-1?", "Is the UI in US English?", "Why store keys in B-trees?"):
        assert without.evidence(asks_no_unit) == without.support


def test_prose_reads_as_the_page_shows_it_and_code_as_written() -> None:
    text = "- **Vision Failure**: confidence &lt;0.7 &amp; no match.\n\n```xml\n<a b=\"&lt;\"/>\n```"
    sentences = split_sentences("c1", text)
    assert [s.text for s in sentences] == ["Vision Failure: confidence <0.7 & no match.", '<a b="&lt;"/>']


def test_emphasis_goes_in_pairs_and_a_lone_mark_is_a_character() -> None:
    text = ("Windows doesn't do any *, ~, or $ENV expansion. Drop a new *.chk file in the folder. "
            "Set ros__parameters: update_frequency. Redux Toolkit's **`createEntityAdapter`** API "
            "gives a *standard* shape.")
    assert [s.text for s in split_sentences("e", text)] == [
        "Windows doesn't do any *, ~, or $ENV expansion.", "Drop a new *.chk file in the folder.",
        "Set ros__parameters: update_frequency.", "Redux Toolkit's createEntityAdapter API gives a standard shape.",
    ]


def test_underscore_emphasis_goes_and_names_with_underscores_stay() -> None:
    text = "A _reducer_ must be a _pure function_. _Do not call APIs._ Set robot_radius, not _id or `_x_`."
    assert [s.text for s in split_sentences("c1", text)] == [
        "A reducer must be a pure function.", "Do not call APIs.", "Set robot_radius, not _id or `_x_`.",
    ]


def test_code_in_prose_reads_as_the_page_shows_it_and_still_gives_a_way() -> None:
    text = ("The value of `s1` was moved into `s2`. `spin()` keeps the node alive. Keep `<a>[i]` as is, "
            "with `*args`, `__init__` and ``a `b` c``.\n\n```python\nx = 1\n```")
    sentences = split_sentences("c1", text)
    assert [s.text for s in sentences] == [
        "The value of s1 was moved into s2.", "spin() keeps the node alive.",
        "Keep `<a>[i]` as is, with `*args`, `__init__` and ``a `b` c``.", "x = 1",
    ]
    assert [s.shows_code for s in sentences[:3]] == [True, True, True] and sentences[3].code
    assert sentences[3].shown == "`x = 1`"
    # Naming code is showing the reader a way, as a code line is.
    assert Window("c1", [sentences[1]], 1.0).gives_way
    plain = split_sentences("c2", "The node stays alive.")
    assert not Window("c2", list(plain), 1.0).gives_way


@pytest.mark.parametrize(
    ("acronym", "text", "spelled"),
    [
        ("IMU", "An Inertial Measurement Unit measures motion.", True),
        ("SLAM", "Simultaneous Localization and Mapping builds the map.", True),  # "and" gives the A
        ("DoD", "rules of the Department of Defense apply", True),  # "of" skipped
        ("GEMs", "NVIDIA Graph Execution Modules run on the GPU.", True),
        ("RGB-D", "a Red Green Blue-Depth camera", True),  # words joined by a hyphen
        ("IMU", "an inertial measurement unit", False),  # not capitalised: any three words would do
        ("IMU", "Inertial Measurement2 Unit", False),  # a word that runs on is another word
        ("DD", "Department of the Defense", False),  # one connector at most
        ("ToF", "a Time-of-Flight camera", False),  # a skipped connector is followed by a space
        ("I", "Inertial", False),  # one initial spells nothing
    ],
)
def test_an_acronym_is_spelled_out_by_its_words_initials(acronym: str, text: str, spelled: bool) -> None:
    assert spelled_out(acronym, text) is spelled


def test_support_asks_for_both_the_words_and_the_subject() -> None:
    """A word that happens to recur ("under your mattress" in a ledger guide) in a passage far
    from the question is weak evidence however many of the question's words it holds; a
    window that holds fewer of them in a passage about the question is stronger."""
    sentences = list(split_sentences("c", "Keep the cash you hold under your mattress in a Cash account."))
    chance = Window("c", sentences, lexical=0.72, semantic=0.07)
    about = Window("c", sentences, lexical=0.45, semantic=0.45)
    assert chance.support < 0.25 < about.support
    # Choosing among windows taken as evidence still weighs the words as much as the passage.
    assert chance.closeness == pytest.approx(0.395)


def test_a_passage_is_measured_against_the_rest_of_the_book() -> None:
    """Its semantic score is 0 at the question's average similarity to the other passages: in
    a book of two, the better passage is measured against the other one, not against an
    average it makes up half of."""
    scores = BookCorpus.semantic_scores(np.array([0.6, 0.2]))
    assert scores[0] == pytest.approx((0.6 - 0.2) / (1 - 0.2)) and scores[1] == 0.0
    assert BookCorpus.semantic_scores(np.array([0.42]))[0] == pytest.approx(0.42)
    assert np.isfinite(BookCorpus.semantic_scores(np.array([1.0, 1.0]))).all()  # int8 cosines reach 1


def test_a_line_of_an_example_is_the_readers_when_they_pasted_it_not_its_comment() -> None:
    asked = _words("The compiler says Rc<Mutex<i32>> cannot be sent between threads safely. Why?")
    error = Sentence("c", 0, "error[E0277]: Rc<Mutex<i32>> cannot be sent between threads safely", frozenset(), True)
    assert _written_in(error, asked)
    setting = Sentence("c", 1, "max_vel_x: 0.5  # the maximum speed of the robot in m/s", frozenset(), True)
    assert not _written_in(setting, _words("What is the maximum speed of the robot in m/s?"))
    # A lead-in is theirs when they pasted a line of its example; a two-word command named in
    # passing is no paste.
    lead_in = Sentence("c", 2, "It stops with:", frozenset(), example=("error: servo 3 not responding",))
    assert _written_in(lead_in, _words("Why do I get error: servo 3 not responding?"))
    command = Sentence("c", 3, "Build it with the following command:", frozenset(), example=("cargo build",))
    assert not _written_in(command, _words("Why does cargo build fail on my laptop?"))


def test_a_window_runs_on_into_the_next_passage_only_where_its_own_ends() -> None:
    """Past the reader's lines, a window runs on into the section's next passage (as the search
    hands it over: past the sentence it repeats) when its own passage has nothing more; one that
    keeps a sentence of its own passage stays in it, as a window quotes one passage."""
    def said(chunk: str, index: int, text: str, code: bool = False) -> Sentence:
        return Sentence(chunk, index, text, frozenset(lexical.terms(text)), code)

    pasted = "fault: joint 4 limit switch not seen within travel"
    first = [said("a", 0, "$ arm-calibrate --all", code=True), said("a", 1, pasted, code=True)]
    second = [said("b", 1, "This fault means the switch cable is unplugged."), said("b", 2, "Check the cable.")]
    question = f"Calibration stops with {pasted}. What now?"
    example = Window("a", first, 0.8, 0.6)
    [told] = _past_the_readers_words([example], first + second, question, lambda passage: second if passage == "a" else [])
    assert (told.chunk_id, [s.text for s in told.sentences]) == ("b", [s.text for s in second])
    # The next passage not read, the example is all there is to show.
    assert _past_the_readers_words([example], first + second, question, lambda passage: []) == [example]
    # A window that keeps "The tool stops …" quotes its own passage only.
    prose = Window("a", [said("a", 0, "The tool stops with a message."), said("a", 1, "Fault: joint 4 limit switch not seen within travel.")], 0.8, 0.6)
    [kept] = _past_the_readers_words([prose], [*prose.sentences, *second], question, lambda passage: second if passage == "a" else [])
    assert (kept.chunk_id, [s.text for s in kept.sentences]) == ("a", ["The tool stops with a message."])


def test_only_the_sentence_right_before_an_example_introduces_it() -> None:
    below = split_sentences("c", "Keep the battery below 40 degrees.\n\n```\nlimit: 40\n```")
    assert below[0].text == "Keep the battery below 40 degrees." and not below[0].example
    asked = split_sentences("c", "Keep the rate below 10. What does it print?\n\n```\nrate: 5\n```")
    assert asked[0].text == "Keep the rate below 10." and not asked[0].example
