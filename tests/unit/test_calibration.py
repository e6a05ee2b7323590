"""Where a book answers is measured on the book: everyday questions are what chance scores on
it, except those the book is itself about (a cookbook answers "How long should I boil an egg?")."""

from collections.abc import Callable
from pathlib import Path
from statistics import NormalDist

import numpy as np

from backend.config import Settings
from backend.engine import Library
from backend.retrieval.calibration import (
    ANSWERABLE_CHANCE,
    ANSWERABLE_FLOOR,
    Probe,
    calibrate,
    probe_questions,
)
from tests.support.answers import ask
from tests.support.books import ingest_into, write_book

PROBE_QUESTIONS = probe_questions()

SERVOS = """# Servo motors

A servo motor holds its position with a feedback loop. The controller compares the measured
angle with the target angle and corrects the difference many times a second.

## Power

Servos run on 5 to 7.4 volts. A stalled servo draws its stall current and heats up quickly.
"""

COOKBOOK = {
    "eggs.md": """# Eggs

## Boiling eggs

How long to boil an egg depends on the yolk you want. Lower the eggs into water that is already
boiling. Cook them six minutes for a soft, jammy yolk and ten minutes for a firm one, then cool
them in cold water so they stop cooking and peel easily.
""",
    "bread.md": """# Bread

## Making a sourdough starter

A sourdough starter is flour and water that wild yeast and bacteria have colonised. Mix equal
weights of wholemeal flour and water in a jar and leave it loosely covered. Every day, discard
half and feed it with fresh flour and water. After about a week it doubles within hours of a
feed and smells pleasantly sour: it is ready to bake with.
""",
    "rice.md": """# Rice

## Cooking rice in a pot

You do not need a rice cooker. Rinse the rice until the water runs clear, then simmer one part
rice with one and a half parts water in a covered pot for twelve minutes. Take it off the heat
and leave the lid on for ten more minutes so the grains finish steaming.

## Fried rice

Fried rice is best made with cold rice from the day before, because the grains are drier and
stay separate in a hot pan.
""",
    "pans.md": """# Pans and storage

## Caring for a cast iron pan

Clean a cast iron pan with hot water and a brush while it is still warm, and avoid soaking it.
Dry it on the stove, then rub a thin film of oil over the surface to keep the seasoning.

## Storing leftovers

Cooked chicken keeps three to four days in the fridge in a closed container. Cool leftovers
within two hours of cooking and reheat them until they are steaming hot all the way through.
""",
    "sweets.md": """# Sweets

## Pancakes

Whisk flour, milk, eggs and a pinch of salt into a smooth batter and let it rest for half an
hour. Cook thin pancakes in a hot buttered pan for about a minute on each side.

## Chocolate chip cookies

Cream butter and sugar, beat in an egg, then stir in flour, baking soda and chocolate chips.
Bake spoonfuls of dough for ten to twelve minutes, until the edges are golden.
""",
}


def test_probes_the_book_is_about_are_left_out_of_chance() -> None:
    """Chance is the probes' support, with its spread; the few probes whose best passage is
    far nearer than the rest's (the book's own subject) are not chance and are left out."""
    own = {"How long should I boil an egg?", "How do I make a sourdough starter?"}

    def probe(question: str) -> Probe:
        spread = (len(question) % 7) / 25  # a spread, as unrelated questions have
        if question in own:
            return Probe(0.8, 0.9, 0.9, True)
        return Probe(0.15 + spread / 4, 0.3 + spread / 4, 0.1 + spread, False)

    calibration = calibrate(probe)
    chance = np.array([probe(q).support for q in PROBE_QUESTIONS if q not in own])
    assert calibration.left_out == len(own) and calibration.probes == len(PROBE_QUESTIONS)
    assert calibration.answerable == round(chance.mean() + 3 * chance.std(), 4) > ANSWERABLE_FLOOR
    # the book's own probes find one page, but they are not chance: none of the rest does
    none_of_the_rest = 1 / (len(chance) + 2)
    sigmas = NormalDist().inv_cdf(1 - ANSWERABLE_CHANCE / none_of_the_rest)
    assert calibration.answerable_on_one_page == round(chance.mean() + sigmas * chance.std(), 4)
    assert calibration.confident == round(chance.mean() + 6 * chance.std(), 4)
    assert calibration.off_topic_similarity < 0.25  # the book's own probes do not raise either level
    assert 0.3 < calibration.off_topic_cosine < 0.4


def test_a_book_that_gives_chance_no_spread_still_needs_evidence() -> None:
    """A book of a passage or two gives everyday questions almost no support: the level does
    not fall below the floor, and confidence still lies twice as far from chance."""
    calibration = calibrate(lambda question: Probe(0.05, 0.1, 0.02, False))
    assert calibration.answerable == calibration.answerable_on_one_page == ANSWERABLE_FLOOR
    assert calibration.confident == round(0.02 + 2 * (ANSWERABLE_FLOOR - 0.02), 4)


def test_a_search_that_finds_one_page_needs_less_support_the_rarer_chance_does_so() -> None:
    """Chance seldom puts a search's best passages all on one page, so support on one page is
    enough where its chance, times the share of everyday questions that find one page, is as
    small as the chance the answerable level admits alone. In a book whose every search finds
    one page (a single long page), finding one says next to nothing."""

    def probes(one_page: int) -> Callable[[str], Probe]:  # every n-th finds one page
        def probe(question: str) -> Probe:
            number = PROBE_QUESTIONS.index(question)
            return Probe(0.15, 0.3, 0.1 + (len(question) % 7) / 25, bool(one_page) and number % one_page == 0)
        return probe

    supports = np.array([0.1 + (len(q) % 7) / 25 for q in PROBE_QUESTIONS])
    mean, spread = supports.mean(), supports.std()
    for every in (0, 10):
        share = ((len(PROBE_QUESTIONS) + every - 1) // every + 1 if every else 1) / (len(PROBE_QUESTIONS) + 2)
        sigmas = NormalDist().inv_cdf(1 - ANSWERABLE_CHANCE / share)
        calibration = calibrate(probes(every))
        assert calibration.answerable_on_one_page == round(mean + sigmas * spread, 4) < calibration.answerable
    assert calibrate(probes(0)).answerable_on_one_page < calibrate(probes(10)).answerable_on_one_page
    always = calibrate(probes(1))
    assert always.answerable - always.answerable_on_one_page < 0.001


async def test_a_book_about_an_everyday_subject_answers_its_own_questions(tmp_path: Path) -> None:
    data = tmp_path / "data"
    ingest_into(data, write_book(tmp_path / "cookbook", COOKBOOK), "cookbook")
    library = Library(Settings(LECTERN_DATA_DIR=data, LECTERN_BOOK="cookbook"))
    try:
        calibration = library.engine().retriever.calibration
        rice, _ = await ask(library.engine(), "Do I need a rice cooker to make rice?")
        sport, _ = await ask(library.engine(), "Who won the World Cup in 2018?")
    finally:
        library.close()
    assert calibration.left_out >= 4  # eggs, sourdough, rice, cast iron …
    assert rice.status == "found" and rice.citations[0].source_path == "rice.md"
    assert sport.status == "not_found" and sport.text.startswith("That question is outside the scope")


async def test_a_book_of_two_passages_does_not_answer_what_it_does_not_say(tmp_path: Path) -> None:
    data = tmp_path / "data"
    ingest_into(data, write_book(tmp_path / "servos", {"servos.md": SERVOS}), "servos")
    library = Library(Settings(LECTERN_DATA_DIR=data, LECTERN_BOOK="servos"))
    try:
        said, _ = await ask(library.engine(), "What voltage do servos run on?")
        unsaid, _ = await ask(library.engine(), "How do I measure the temperature of an oven?")
    finally:
        library.close()
    assert said.status == "found" and "7.4 volts" in said.text
    assert unsaid.status == "not_found" and unsaid.citations == []
