"""`lectern eval`'s scoring: the precisions of answers given as found and shown with high confidence,
and the metrics of each style of question."""

from backend.evaluation import CitedSource, EvalQuestion, EvalResult, Gold, score


def _cited(file: str) -> CitedSource:
    return CitedSource(source_path=file, heading="", url="", module="", lesson="")


def _question(id: str, kind: str = "answerable", style: str | None = None) -> EvalQuestion:
    gold = [] if kind == "unanswerable" else [Gold(file="a.md")]
    return EvalQuestion(id=id, kind=kind, question="q?", gold=gold, answer_phrases=["forty-two"] if gold else [],
                        style=style)


def _result(id: str, kind: str, status: str, confidence: str, answer: str, files: list[str]) -> EvalResult:
    return EvalResult(id=id, kind=kind, status=status, confidence=confidence, answer=answer,
                      citations=[_cited(f) for f in files], latency_ms=1.0)


def test_found_and_high_precision_count_right_answers_among_those_given() -> None:
    questions = [_question("right"), _question("no-fact"), _question("wrong-page"), _question("declined"),
                 _question("made-up", "unanswerable")]
    results = [
        _result("right", "answerable", "found", "high", "It is Forty-two.", ["a.md", "b.md"]),
        _result("no-fact", "answerable", "found", "high", "It is a number.", ["a.md"]),
        _result("wrong-page", "answerable", "found", "needs_review", "forty-two", ["b.md", "a.md"]),
        _result("declined", "answerable", "not_found", "not_found", "Not in the book.", []),
        _result("made-up", "unanswerable", "found", "high", "Something.", ["b.md"]),
    ]
    overall = score(questions, results)["all"]
    assert overall["found_precision"] == round(1 / 4, 3)  # four given as found, one right
    assert overall["high_precision"] == round(1 / 3, 3)
    assert overall["first_citation_hit"] == round(2 / 4, 3)


def test_no_found_answer_means_no_precision_rather_than_zero() -> None:
    questions = [_question("declined")]
    results = [_result("declined", "answerable", "not_found", "not_found", "No.", [])]
    overall = score(questions, results)["all"]
    assert "found_precision" not in overall and "high_precision" not in overall


def test_each_style_is_scored_apart_and_questions_without_one_only_overall() -> None:
    questions = [_question("p1", style="paraphrase"), _question("p2", style="paraphrase"),
                 _question("t1", style="terse"), _question("plain-old")]
    results = [
        _result("p1", "answerable", "not_found", "not_found", "Not in the book.", []),
        _result("p2", "answerable", "found", "needs_review", "forty-two", ["a.md"]),
        _result("t1", "answerable", "found", "needs_review", "forty-two", ["a.md"]),
        _result("plain-old", "answerable", "found", "needs_review", "forty-two", ["a.md"]),
    ]
    report = score(questions, results)
    assert set(report) == {"answerable", "all", "style:paraphrase", "style:terse"}
    assert report["style:paraphrase"]["false_abstention"] == 0.5
    assert report["style:paraphrase"]["questions"] == 2
    assert report["style:terse"]["first_citation_hit"] == 1.0
    assert report["all"]["questions"] == 4
