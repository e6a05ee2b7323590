"""`lectern eval`'s scoring: the precisions of answers given as found and shown with high confidence."""

from backend.evaluation import CitedSource, EvalQuestion, EvalResult, Gold, score


def _cited(file: str) -> CitedSource:
    return CitedSource(source_path=file, heading="", url="", module="", lesson="")


def _question(id: str, kind: str = "answerable") -> EvalQuestion:
    gold = [] if kind == "unanswerable" else [Gold(file="a.md")]
    return EvalQuestion(id=id, kind=kind, question="q?", gold=gold, answer_phrases=["forty-two"] if gold else [])


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
