"""The answer judge: learned weights, the levels chosen on books left out, and what it decides."""

import numpy as np

from backend.grounding.judge import FEATURES, PACKAGED, Judge, Judgment, Logistic, coverage
from backend.grounding.status import assess
from backend.retrieval.embeddings import CohereEmbedder, OnnxEmbedder, packaged_reader, reader_for
from eval import train_judge


def _features(**given: float) -> dict[str, float]:
    return {name: given.get(name, 0.0) for name in FEATURES}


def test_the_packaged_judge_reads_every_signal_and_gives_probabilities() -> None:
    judge = Judge.load(PACKAGED)
    for model in (judge.answers, judge.right):
        assert set(model.weights) == set(FEATURES) and all(s > 0 for s in model.spreads.values())
    strong = _features(support_above=2.0, lead_covered=0.8, lead_least_covered=0.6, quotes_covered=0.8,
                       quotes_least_covered=0.6, answer_share=1.0, lead_above=0.5, names_held=1.0)
    weak = _features(support_above=-2.0, lead_above=-0.1, names_held=0.0)
    assert 0.0 <= judge.answers.probability(weak) < judge.found_at <= judge.answers.probability(strong) <= 1.0


def test_logistic_regression_learns_which_signal_tells_right_from_wrong() -> None:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(400, len(FEATURES)))
    y = (x[:, 0] + 0.1 * rng.normal(size=400) > 0).astype(float)  # only the first signal matters
    model = train_judge.fit(x, y)
    weights = np.array([model.weights[name] for name in FEATURES])
    assert weights[0] > 3 * np.abs(weights[1:]).max()
    predicted = np.array([model.probability(dict(zip(FEATURES, row, strict=True))) for row in x]) >= 0.5
    assert (predicted == y.astype(bool)).mean() > 0.9


def test_the_high_level_is_the_lowest_whose_answers_are_surely_right_nine_times_in_ten() -> None:
    probability = np.linspace(0.99, 0.01, 400)
    right = np.zeros(400, bool)
    right[:100] = True  # the best hundred are right ...
    right[100:200:2] = True  # ... then one in two
    found = np.ones(400, bool)
    level = train_judge.high_level(probability, right, found)
    assert level is not None and probability[130] < level < probability[99]  # a few of the halves fit in
    assert right[probability >= level].mean() >= 0.9
    # four right answers at the top are too few to be sure of anything
    assert train_judge.high_level(probability[:8], np.array([1, 1, 1, 1, 0, 1, 0, 0], bool), found[:8]) is None


def test_a_judged_answer_is_declined_below_the_found_level_and_high_only_above_its_level() -> None:
    model = Logistic(weights=_features(support_above=1.0), bias=0.0, means=_features(), spreads=_features(**dict.fromkeys(FEATURES, 1.0)))
    judge = Judge(model, model, found_at=0.5, high_at=0.9)

    def status(support: float) -> tuple[str, str]:
        features = _features(support_above=support)
        made = Judgment(features=features, answers=model.probability(features), right=model.probability(features))
        assessed = assess(made, citations=1, model_declined=False, found_at=judge.found_at, high_at=judge.high_at)
        return assessed.status, assessed.confidence

    assert status(-1.0) == ("not_found", "not_found")
    assert status(1.0) == ("found", "needs_review")
    assert status(3.0) == ("found", "high")


def test_a_question_about_something_the_book_never_mentions_is_declined_however_likely() -> None:
    made = Judgment(features=_features(support_above=3.0), answers=0.99, right=0.99)
    assessed = assess(made, citations=2, model_declined=False, found_at=0.5, high_at=0.9, never_mentioned=True)
    assert (assessed.status, assessed.confidence) == ("not_found", "not_found")
    assert assess(made, citations=2, model_declined=False, found_at=0.5, high_at=0.9).status == "found"


def test_a_quote_covers_the_ask_word_piece_by_word_piece_and_its_least_covered_part_stands_out() -> None:
    """The packaged model reads each word piece in context: a quote that says the asked thing in
    other words covers the ask better than one on the same subject that leaves out what is asked."""
    reader = packaged_reader()
    ask = "How long does the retry loop wait before giving up?"
    answers = "The retry loop stops after thirty seconds without a reply."
    beside = "The retry loop can be switched off in the settings file."
    (covered, least), (other_covered, other_least), nothing = coverage(reader, ask, [answers, beside, ""])
    assert 0 < least < covered <= 1
    assert least > other_least and covered > other_covered
    assert nothing == (0.0, 0.0)
    assert coverage(reader, "?!", [answers]) == [(0.0, 0.0)]  # nothing to cover
    assert coverage(reader, ask, [answers, answers]) == [(covered, least)] * 2


def test_quotes_are_read_by_the_packaged_model_whichever_service_embeds_the_book() -> None:
    book_model = OnnxEmbedder()
    assert reader_for(book_model) is book_model  # the same session: no second copy of the model
    cohere = CohereEmbedder(api_key="unused")  # makes no request until it embeds
    assert reader_for(cohere) is packaged_reader() is reader_for(cohere)


def test_a_judge_is_learned_on_the_signals_asked_for_and_its_area_under_the_curve_read() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(200, len(FEATURES)))
    y = (x[:, 0] > 0).astype(float)
    without = FEATURES[1:]  # the one signal that tells them apart left out
    model = train_judge.fit(x[:, 1:], y, without)
    assert set(model.weights) == set(without)
    assert train_judge.area_under_curve(np.array([0.9, 0.8, 0.3, 0.1]), np.array([True, True, False, False])) == 1.0
    assert train_judge.area_under_curve(np.array([0.5, 0.5]), np.array([True, False])) == 0.5
