"""The offline model's policy: which tools it calls, in which order, and how it composes an
answer from what they returned (tool outputs shaped as backend/agent/tools.py writes them)."""

from typing import Any

from backend.agent.offline_model import OfflineAnswerModel
from backend.grounding.messages import NOT_IN_BOOK_MARKER
from backend.question import Question, Turn

TOOLS = {"search_book_content", "get_selected_text_context", "get_lesson_metadata"}
ANSWERABLE = 0.36  # the support at which the book of these searches answers (its calibration)
STRONG, WEAK = 0.6, 0.2  # either side of it


def search(
    query: str,
    support: float,
    *windows: tuple[str, str, str, float],
    context: tuple[str, ...] = (),
    answerable: float = ANSWERABLE,
) -> dict[str, Any]:
    """A search tool's output, as tools.search_book_content writes it."""
    key_sentences = [
        {"ref": ref, "lesson": lesson, "text": text, "support": s} for ref, lesson, text, s in windows
    ]
    return {"query": query, "context": list(context), "support": support, "answerable": answerable,
            "key_sentences": key_sentences, "passages": []}


def test_a_selection_is_read_before_searching_with_it() -> None:
    model = OfflineAnswerModel(Question(text="Why is that useful?", selected_text="Nodes are isolated."))
    assert model.next_tool_calls([], TOOLS) == [
        ("get_selected_text_context", {"selected_text": "Nodes are isolated.", "lesson_id": None})
    ]
    found = {"found": True, "passages": []}
    assert model.next_tool_calls([found], TOOLS) == [
        ("search_book_content", {"query": "Why is that useful? Nodes are isolated."})
    ]
    not_in_book = {"found": False, "passages": []}
    assert model.next_tool_calls([not_in_book], TOOLS) == [
        ("search_book_content", {"query": "Why is that useful?"})
    ]


def test_a_window_that_runs_into_one_already_quoted_is_quoted_up_to_it() -> None:
    model = OfflineAnswerModel(Question(text="How do I keep safe data from being escaped twice?"))
    found = search(
        "How do I keep safe data from being escaped twice?", STRONG,
        ("S1", "Escaping", "Functions return safe data. Literals are unsafe.", STRONG),
        ("S1", "Escaping", "Wrap safe data in Markup. Functions return safe data.", STRONG),
    )
    assert model.compose([found]) == (
        "Functions return safe data. Literals are unsafe. [S1] Wrap safe data in Markup. [S1]"
    )


def test_a_window_is_cut_only_before_a_whole_sentence_and_never_to_a_lead_in() -> None:
    model = OfflineAnswerModel(Question(text="How is the queue size set on a robot without a map?"))
    found = search(
        "How is the queue size set on a robot without a map?", STRONG,
        ("S1", "Queues", "Nav2 is required. It plans paths.", STRONG),
        ("S1", "Queues", "On a robot without a map, Nav2 is required. It plans paths.", STRONG),
        ("S2", "Queues", "Set the queue size with the following command. Nav2 is required.", STRONG),
    )
    # the second runs into the first mid-sentence (not cut there, it overlaps what was quoted);
    # the third, cut, would be left a lead-in to what was cut
    assert model.compose([found]) == "Nav2 is required. It plans paths. [S1]"


def test_each_part_of_a_question_gets_its_own_search() -> None:
    model = OfflineAnswerModel(Question(text="What does a LiDAR measure, and how far can it see?"))
    assert [arguments for _, arguments in model.next_tool_calls([], TOOLS)] == [
        {"query": "What does a LiDAR measure, and how far can it see?"},
        {"query": "What does a LiDAR measure"},
        {"query": "how far can it see", "context": ["What does a LiDAR measure"]},
    ]


def test_a_follow_up_that_found_little_searches_again_with_the_previous_exchange() -> None:
    history = [
        Turn(role="user", content="What is Whisper?"),
        Turn(role="assistant", content="Whisper is a speech recognition model."),
    ]
    model = OfflineAnswerModel(Question(text="What can it cope with?", history=history))
    first = search("What can it cope with?", WEAK, context=("What is Whisper?",))
    retry = ["What is Whisper? Whisper is a speech recognition model."]
    assert model.next_tool_calls([first], TOOLS) == [
        ("search_book_content", {"query": "What can it cope with?", "context": retry})]
    again = search("What can it cope with?", STRONG, context=tuple(retry))
    assert model.next_tool_calls([first, again], TOOLS) == []  # one retry at most
    strong = search("What can it cope with?", STRONG, context=("What is Whisper?",))
    assert model.next_tool_calls([strong], TOOLS) == []
    # Without history there is nothing to search again with: the model answers (or declines).
    assert OfflineAnswerModel(Question(text="What can it cope with?")).next_tool_calls([first], TOOLS) == []


def test_a_part_that_found_little_alone_searches_again_leaning_on_the_first_part() -> None:
    """"…, and what do the two numbers at the end mean?" leaves its subject to the first part
    without a pronoun: alone it finds little, so it is searched with the first part's words.
    That search's support owes much to those words, so only its windows that use a word of the
    part's own answer the part, and the whole question's search still leads."""
    question = "What does an fstab line look like, and what do the two numbers at the end mean?"
    model = OfflineAnswerModel(Question(text=question))
    first, second = "What does an fstab line look like", "what do the two numbers at the end mean"
    whole = search(question, STRONG, ("S1", "NFS", "An entry reads server:/srv /srv nfs4 rw 0 0.", STRONG))
    line = search(first, STRONG, ("S1", "NFS", "An entry reads server:/srv /srv nfs4 rw 0 0.", STRONG))
    alone = search(second, WEAK, ("S3", "Zones", "Two numbers end each zone record.", WEAK))
    assert model.next_tool_calls([whole, line, alone], TOOLS) == [
        ("search_book_content", {"query": second, "context": [first]})
    ]
    leaning = search(second, STRONG + 0.1,
                     ("S4", "Mounting", "Mount options are separated by commas.", STRONG + 0.1),
                     ("S2", "Fstab", "The last two numbers are the dump flag and the fsck order.", STRONG),
                     context=(first,))
    assert model.next_tool_calls([whole, line, alone, leaning], TOOLS) == []  # one retry at most
    assert model.compose([whole, line, alone, leaning]) == (
        "An entry reads server:/srv /srv nfs4 rw 0 0. [S1] "
        "The last two numbers are the dump flag and the fsck order. [S2]"
    )
    # Nothing in it uses the part's own words: the part is left to its own search.
    unrelated = search(second, STRONG, ("S4", "Mounting", "Mount options are separated by commas.", STRONG),
                       context=(first,))
    assert model.compose([whole, line, alone, unrelated]) == "An entry reads server:/srv /srv nfs4 rw 0 0. [S1]"
    # A part found alone is answered alone: leaning would trade its lesson for the first part's.
    found = search(second, STRONG, ("S3", "Zones", "Two numbers end each zone record.", STRONG))
    assert model.next_tool_calls([whole, line, found], TOOLS) == []


def test_it_quotes_the_best_it_found_however_weak_and_declines_only_when_nothing_was_found() -> None:
    """Whether a weak quote answers is the judge's to say (grounding/judge.py), as for any model."""
    model = OfflineAnswerModel(Question(text="What does a pizza oven cost?"))
    weak = search("What does a pizza oven cost?", WEAK, ("S1", "Ovens", "Ovens are hot.", WEAK))
    assert model.compose([weak]) == "Ovens are hot. [S1]"
    assert model.compose([search("What does a pizza oven cost?", 0.0)]) == NOT_IN_BOOK_MARKER
    assert model.compose([]) == NOT_IN_BOOK_MARKER


def test_the_retry_answers_when_it_found_more_than_the_first_search() -> None:
    history = [Turn(role="user", content="What is Whisper?"), Turn(role="assistant", content="A model.")]
    model = OfflineAnswerModel(Question(text="What can it cope with?", history=history))
    first = search("What can it cope with? (What is Whisper?)", WEAK, ("S1", "A", "Unrelated.", WEAK))
    retry = search("What can it cope with? (What is Whisper? A model.)", STRONG,
                   ("S2", "Voice", "It handles accents and noise.", STRONG))
    assert model.compose([first, retry]) == "It handles accents and noise. [S2]"


def test_each_part_is_answered_preferring_a_lesson_not_yet_cited() -> None:
    question = "How do LiDAR maps and IMU drift relate?"
    model = OfflineAnswerModel(Question(text=question))
    whole = search(question, STRONG, ("S1", "LiDAR", "LiDAR builds maps of rooms.", STRONG))
    lidar = search("How do LiDAR maps", STRONG,
                   ("S1", "LiDAR", "LiDAR builds maps of rooms.", STRONG))
    imu = search("IMU drift", STRONG,
                 ("S2", "LiDAR", "LiDAR does not drift like an IMU.", STRONG),
                 ("S3", "IMU", "IMU drift grows with time.", STRONG * 0.9))
    answer = model.compose([whole, lidar, imu])
    assert answer == "LiDAR builds maps of rooms. [S1] IMU drift grows with time. [S3]"


def test_a_window_on_every_part_leads_and_one_on_a_single_part_waits_for_the_parts() -> None:
    question = "How do LiDAR maps and IMU drift relate?"
    model = OfflineAnswerModel(Question(text=question))
    lidar = search("How do LiDAR maps", STRONG, ("S1", "LiDAR", "LiDAR builds maps of rooms.", STRONG))
    imu = search("IMU drift", STRONG, ("S3", "IMU", "IMU drift grows with time.", STRONG))
    only_imu = ("S4", "IMU", "An IMU drifts slowly, so its drift is corrected.", STRONG)
    both = ("S5", "Fusion", "LiDAR maps correct IMU drift.", STRONG * 0.9)
    answer = model.compose([search(question, STRONG, only_imu, both), lidar, imu])
    assert answer == (
        "LiDAR maps correct IMU drift. [S5] LiDAR builds maps of rooms. [S1] IMU drift grows with time. [S3]"
    )
    answer = model.compose([search(question, STRONG, only_imu), lidar, imu])
    assert answer == (
        "LiDAR builds maps of rooms. [S1] IMU drift grows with time. [S3] "
        "An IMU drifts slowly, so its drift is corrected. [S4]"
    )


def test_a_question_that_asks_several_things_is_led_by_its_best_answer_whole() -> None:
    question = "What fields does an action have? I keep seeing payload and meta everywhere."
    model = OfflineAnswerModel(Question(text=question))
    whole = search(question, STRONG,
                   ("S1", "Patterns", "Flux Standard Actions have type, payload, error and meta.", STRONG))
    fields = search("What fields does an action have", STRONG,
                    ("S2", "Concepts", "An action is an object with a type field.", STRONG))
    payload = search("I keep seeing payload and meta everywhere", STRONG,
                     ("S1", "Patterns", "Flux Standard Actions have type, payload, error and meta.", STRONG),
                     ("S3", "Data", "Put the data of an action in its payload field.", STRONG * 0.9))
    assert model.compose([whole, fields, payload]) == (
        "Flux Standard Actions have type, payload, error and meta. [S1] "
        "An action is an object with a type field. [S2] Put the data of an action in its payload field. [S3]"
    )


def test_a_selection_is_never_quoted_back_and_its_neighbourhood_answers_first() -> None:
    selected = "Tools like rqt_graph show the graph in real time."
    model = OfflineAnswerModel(Question(text="Why does that help when something breaks?", selected_text=selected))
    passage = (
        "## The Graph\n\nNodes and topics form a graph. Tools like `rqt_graph` show the graph in "
        "real time. This visibility helps diagnose issues. When something breaks, you see where "
        "the data flow stops.\n"
    )
    context = {"found": True, "selected_ref": "S1", "passages": [
        {"ref": "S1", "module": "M", "lesson": "Graph", "section": "The Graph", "kind": "lesson", "text": passage},
    ]}
    found = search(f"Why does that help when something breaks? {selected}", STRONG,
                   ("S1", "Graph", ("Tools like `rqt_graph` show the graph in real time. "
                                     "This visibility helps diagnose issues."), STRONG),
                   ("S1", "Graph", ("Nodes and topics form a graph. Tools like `rqt_graph` show "
                                     "the graph in real time."), STRONG))
    answer = model.compose([context, found])
    assert "rqt_graph" not in answer  # the reader has just read that sentence
    # First the window after the selection that uses most of the question's words.
    assert answer == (
        "This visibility helps diagnose issues. When something breaks, you see where the data "
        "flow stops. [S1] Nodes and topics form a graph. [S1]"
    )


def test_the_text_that_continues_a_selection_is_quoted_after_the_best_match() -> None:
    selected = "Depth takes 200 ms to process. The costmap lags 20 cm behind."
    model = OfflineAnswerModel(Question(text="How do you avoid this problem?", selected_text=selected))
    passage = (
        "A robot should avoid people. Depth takes 200 ms to process. The costmap lags 20 cm "
        "behind. Fast costmap updates at 10-20 Hz keep it current. GPUs help too.\n"
    )
    context = {"found": True, "selected_ref": "S1", "passages": [
        {"ref": "S1", "module": "M", "lesson": "Depth", "section": "Latency", "kind": "lesson", "text": passage},
    ]}
    found = search(f"How do you avoid this problem? {selected}", STRONG)
    # The window that uses the question's word ("avoid"), then what follows the selection
    # (its end, not its start, is where "after" is measured from).
    assert model.compose([context, found]) == (
        "A robot should avoid people. [S1] Fast costmap updates at 10-20 Hz keep it current. "
        "GPUs help too. [S1]"
    )


def test_a_selected_sentence_is_cut_from_a_window_that_runs_on_from_a_list_item() -> None:
    selected = "Getting units wrong is the #1 beginner mistake."
    model = OfflineAnswerModel(Question(text="How would I notice?", selected_text=selected))
    found = search("How would I notice? " + selected, STRONG,
                   ("S1", "URDF", "Force/Torque: Newtons Getting units **wrong** is the #1 beginner mistake.", STRONG))
    assert model.compose([{"found": False, "passages": []}, found]) == "Force/Torque: Newtons [S1]"


def test_a_question_about_the_page_reads_that_lesson() -> None:
    model = OfflineAnswerModel(Question(text="What are the key ideas of this page?", lesson_id="imu"))
    assert model.next_tool_calls([], TOOLS) == [("get_lesson_metadata", {"lesson_id": "imu"})]
    lesson = {"found": True, "title": "IMUs", "description": "What an IMU measures.",
              "objectives": ["Read IMU messages"], "sections": []}
    assert model.next_tool_calls([lesson], TOOLS) == [
        ("search_book_content", {"query": "IMUs What an IMU measures. Read IMU messages", "lesson": "imu"})
    ]
    read = search("IMUs What an IMU measures. Read IMU messages", STRONG, ("S1", "IMUs", "IMUs sense motion.", STRONG))
    assert model.next_tool_calls([lesson, read], TOOLS) == []
    assert model.compose([lesson, read]) == "IMUs sense motion. [S1]"
    assert model.next_tool_calls([{"found": False, "lessons": []}], TOOLS) == []  # unknown: decline


def test_the_best_window_offered_is_quoted_when_none_comes_near_the_search_s_support() -> None:
    """The search's support can come from a window it does not offer for quoting (it offers its
    best few for the reader's own words, none repeating them): the model still quotes the best
    it was offered, and the judge decides whether that answers."""
    question = "And can I give it my own client name?"
    model = OfflineAnswerModel(Question(text=question, history=[
        Turn(role="user", content="How do I open a virtual port?"),
        Turn(role="assistant", content="Pass virtual=True when you open it."),
    ]))
    found = search(
        question, STRONG,
        ("S1", "Ports", "The client name is set with the client_name argument.", STRONG * 0.7),
        ("S2", "Ports", "Virtual ports are not supported on Windows.", STRONG * 0.5),
    )
    assert model.compose([found]) == "The client name is set with the client_name argument. [S1]"
    nothing = search(question, STRONG)
    assert model.compose([nothing]) == NOT_IN_BOOK_MARKER
