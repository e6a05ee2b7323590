"""From a reader's question to search queries and terms: follow-ups, question parts, analyzer."""

import pytest

from backend.question import (
    Question,
    Turn,
    analysed,
    asks_about_the_text,
    standalone_query,
)
from backend.retrieval import lexical
from backend.retrieval.query import Query


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("What does a LiDAR measure, and how far can it see?",
         ["What does a LiDAR measure", "how far can it see"]),
        ("How is a servo driven? What limits its torque?",
         ["How is a servo driven", "What limits its torque"]),
        # A leading "In X," is context of the question, not a question of its own.
        ("In a complementary filter, what value is used for alpha, and why does drift grow?",
         ["In a complementary filter, what value is used for alpha", "why does drift grow"]),
        ("How does the planner pick a path, and in the URDF, what defines a joint's origin?",
         ["How does the planner pick a path", "in the URDF, what defines a joint's origin"]),
        ("How do URDF descriptions and Isaac Sim work together?", ["How do URDF descriptions", "Isaac Sim"]),
        ("How does sensor fusion relate to visual SLAM?", ["How does sensor fusion", "visual SLAM"]),
        # A topic of one word is enough to search; the relation words are not a topic.
        ("What are the differences between LiDAR and depth cameras?", ["What are the LiDAR", "depth cameras"]),
        ("Why call an action server rather than a plain service?", ["Why call an action server", "a plain service"]),
        # "…, and how do they connect?" relates the topics of the clause before it.
        ("Which lessons cover LLM planning and safety checks, and how do they connect?",
         ["Which lessons cover LLM planning", "safety checks"]),
        # A statement, then its question; "and at what rate …" starts a question too.
        ("The driver remaps imu to /imu/data. What message type is sent and at what rate does it arrive?",
         ["The driver remaps imu to /imu/data", "What message type is sent", "at what rate does it arrive"]),
        # A statement that joins two clauses sets two scenes.
        ("I want a base layout on every page, and then flashed messages under it. How do I do that?",
         ["I want a base layout on every page", "flashed messages under it"]),
        # Scenes take only the room the question's own clauses leave.
        ("I use Flask, and I deploy with Docker. How do I add login, and how do I test the views?",
         ["I use Flask", "How do I add login", "how do I test the views"]),
        # "i.e." and "e.g." end no statement: the question goes on.
        ("What is the default queue size, i.e. how many messages does a topic keep?", []),
    ],
)
def test_questions_that_ask_several_things_are_split(question: str, parts: list[str]) -> None:
    assert list(analysed(question).parts) == parts


@pytest.mark.parametrize(
    "question",
    [
        "What is a ROS 2 node?",
        "How often does the local costmap update and publish?",  # one question, two verbs
        "What is the difference between it and that?",  # the topics are too short to search
        "Stop and go?",
        # A statement is context: its words ("never connect") relate no topics.
        "My publisher and subscriber share a topic name but never connect. What could cause that?",
        # A statement's "and" without a comma joins words, not clauses; ", and" may end a list.
        "My publisher and subscriber share a topic name. Why?",
        "My app uses Flask, Jinja, and SQLAlchemy with Postgres. How do I test it?",
        # The reader connecting to something is what they do, not two topics connecting.
        "How do I connect to the robot's log database and read the last errors?",
    ],
)
def test_questions_that_ask_one_thing_are_not_split(question: str) -> None:
    assert analysed(question).parts == {}


@pytest.mark.parametrize(
    ("question", "relates"),
    [
        ("How do URDF descriptions and Isaac Sim work together?", True),
        ("Which lessons cover LLM planning and safety checks, and how do they connect?", True),
        ("Why call an action server rather than a plain service?", True),
        ("What does a LiDAR measure, and how far can it see?", False),
        # What a statement says relates nothing: the question after it asks one thing.
        ("My publisher and subscriber never connect. What could cause that?", False),
        ("How do the planner and the controller connect?", True),
        ("What is the connection between URDF and TF2?", True),
        ("Where should the websocket connection object live?", False),
        ("How can I connect to the simulator from a second machine?", False),
        ("How to connect to the simulator from a second machine?", False),
    ],
)
def test_a_question_that_asks_how_topics_relate_is_told_from_one_that_asks_several_things(
    question: str, relates: bool
) -> None:
    assert analysed(question).relates is relates


def test_a_part_that_refers_back_is_searched_with_the_first_part() -> None:
    history = [Turn(role="user", content="What is a LiDAR?")]
    assert analysed("What does the sensor measure, and how far can it see?", history).parts == {
        "What does the sensor measure": Query("What does the sensor measure"),
        "how far can it see": Query(
            "how far can it see", ("What does the sensor measure", "What is a LiDAR?")),
    }
    assert analysed("What is a ROS 2 node?", []).parts == {}


def test_a_follow_up_borrows_the_subject_of_the_previous_question() -> None:
    history = [
        Turn(role="user", content="What is a ToF camera?"),
        Turn(role="assistant", content="A camera that times light pulses."),
    ]
    assert standalone_query("What is its range?", history) == Query("What is its range?", ("What is a ToF camera?",))
    assert standalone_query("Why?", history) == Query("Why?", ("What is a ToF camera?",))  # too few words
    assert standalone_query("How accurate are stereo cameras?", history) == Query("How accurate are stereo cameras?")
    assert standalone_query("What is its range?", []) == Query("What is its range?")


def test_a_follow_up_of_a_follow_up_borrows_the_subject_it_leaned_on() -> None:
    history = [
        Turn(role="user", content="What is Whisper?"),
        Turn(role="assistant", content="A speech recognition model."),
        Turn(role="user", content="What does the bt_navigator do?"),
        Turn(role="assistant", content="It runs behavior trees."),
        Turn(role="user", content="Does the humanoid config use a special tree for it?"),
        Turn(role="assistant", content="Yes, a custom one."),
    ]
    assert standalone_query("What is that file called?", history) == Query("What is that file called?", (
        "What does the bt_navigator do? Does the humanoid config use a special tree for it?",))


def test_greek_letters_are_indexed_by_their_names() -> None:
    assert lexical.terms("Why α ≈ 0.98") == lexical.terms("why alpha ≈ 0.98")
    assert "theta" in lexical.terms("the joint angle θ") and "delta" in lexical.terms("Δt")


def test_a_name_and_its_version_match_however_they_are_spelled() -> None:
    assert lexical.terms("ROS 2 nodes", compounds=False) == lexical.terms("ROS2 nodes", compounds=False)
    assert set(lexical.terms("ROS 2")) <= set(lexical.terms("ROS2"))  # the BM25 side matches too
    assert lexical.terms("3D LiDAR at 30fps") == ["3d", "lidar", "30fps"]  # units stay whole
    assert lexical.terms("rqt_graph", compounds=False) == ["rqt", "graph"]


@pytest.mark.parametrize(
    ("question", "scope"),
    [
        ("What does this book cover?", "book"),
        ("What topics does the guide cover?", "book"),
        ("What will I learn in this module?", "book"),
        ("What are the key ideas of this page?", "page"),
        ("What is this lesson about?", "page"),
        ("Summarize this chapter", "page"),
        # Questions about the subject matter, even when they name pages or lessons:
        ("Which page covers QoS?", None),
        ("What does the lesson say about drift?", None),
        ("What is a ROS 2 node?", None),
        ("What is this about?", None),
    ],
)
def test_questions_about_the_text_itself_are_recognised(question: str, scope: str | None) -> None:
    assert asks_about_the_text(Question(text=question)) == scope


def test_a_selection_or_a_conversation_is_not_a_question_about_the_text() -> None:
    assert asks_about_the_text(Question(text="Summarize this section", selected_text="Nodes are isolated.")) is None
    history = [Turn(role="user", content="What is Nav2?")]
    assert asks_about_the_text(Question(text="What are the key ideas of this page?", history=history)) is None


def test_a_query_keeps_the_readers_own_words_apart_from_what_it_leans_on() -> None:
    """The context travels beside the reader's words, never inside them: a reader's own
    parentheses stay the reader's."""
    history = [Turn(role="user", content="What is a ToF camera?")]
    query = standalone_query("What is its range?", history)
    assert query.text == "What is its range?"
    assert query.whole == "What is its range? (What is a ToF camera?)"  # what retrieval matches
    parts = analysed("What does the sensor measure, and how far can it see?", history).parts
    assert parts["how far can it see"].text == "how far can it see"
    own = standalone_query("What sample rate does it use (in kHz)?", history)
    assert own.text == "What sample rate does it use (in kHz)?"
    assert standalone_query("What is SLAM (mapping)?", []) == Query("What is SLAM (mapping)?")


@pytest.mark.parametrize(
    ("typed", "asked"),
    [
        ("<script>alert('hi')</script> What is URDF?", "What is URDF?"),
        ("<img src=x onerror=alert(1)>What is a <b>node</b>?", "What is a node?"),
        ("Why is x < 3 &amp; y > 2? <!-- note -->", "Why is x < 3 & y > 2?"),
        ("How do I type useSelector<RootState> and Array<string>?",
         "How do I type useSelector<RootState> and Array<string>?"),
    ],
)
def test_a_question_is_read_without_its_markup(typed: str, asked: str) -> None:
    assert Question(text=typed).text == asked



def test_the_question_is_analysed_once() -> None:
    question = Question(text="I use Flask, and I deploy with Docker. How do I add login, and how do I test the views?")
    assert question.asked is question.asked
    assert question.asked.scenes == ("I use Flask", "I deploy with Docker")
    assert question.asked.ask == "How do I add login, and how do I test the views?"
    assert list(question.asked.parts) == ["I use Flask", "How do I add login", "how do I test the views"]


@pytest.mark.parametrize(
    ("typed", "ask", "scenes", "pasted"),
    [
        # Between fences: pasted, whatever the fence's language tag, and not a scene.
        ("```python\nyield scrapy.Request(url)\n```\nThe server acts as if I'm logged out. What's wrong?",
         "What's wrong?", ("The server acts as if I'm logged out",), ("yield scrapy.Request(url)",)),
        # A fence left open runs to the end; the question before it is what is asked.
        ("Why does this fail?\n~~~\nKeyError: 'colour'", "Why does this fail?", (), ("KeyError: 'colour'",)),
        # Lines pasted without fences set the scene; the question is the last line that asks one.
        ("def f():\n    return 42\nf() returns 42?? where did the exception go\nZeroDivisionError",
         "f() returns 42?? where did the exception go", ("def f(): return 42", "ZeroDivisionError"), ()),
        # Text that is all pasted is what the reader wrote.
        ("```\nKeyError: 'colour'\n```", "KeyError: 'colour'", (), ()),
    ],
)
def test_what_a_reader_pasted_is_told_from_what_they_ask(
    typed: str, ask: str, scenes: tuple[str, ...], pasted: tuple[str, ...]
) -> None:
    asked = Question(text=typed).asked
    assert (asked.ask, asked.scenes, asked.pasted) == (ask, scenes, pasted)
    assert asked.query.pasted == pasted
    assert all(block not in asked.query.text for block in pasted)
    assert all(block in asked.query.whole for block in pasted)  # searched with the question


def test_a_question_keeps_its_lines() -> None:
    assert Question(text="  KeyError:   'x'\n\n   why?  ").text == "KeyError: 'x'\nwhy?"
