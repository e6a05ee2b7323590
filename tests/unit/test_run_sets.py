"""eval/run_sets.py: every question set is listed with the book it is about, every book has the
README line that ingests it, and one command fetches, ingests, answers and tabulates (a real
run on the sample book, twice, the second resuming)."""

import json
import subprocess
import sys
from pathlib import Path

from backend.evaluation import load_questions
from eval.run_sets import PROJECT, book_sources, load_sets

SAMPLE_BOOK = PROJECT / "sample_book"


def test_every_question_set_is_listed_once_with_a_book_the_readme_ingests() -> None:
    sets = load_sets(PROJECT / "eval/questions/sets.tsv")
    names = [s.name for s in sets]
    assert sorted(names) == sorted(p.stem for p in (PROJECT / "eval/questions").glob("*.jsonl"))
    assert len(set(names)) == len(names)
    sources = book_sources()
    for question_set in sets:
        assert (PROJECT / question_set.questions).is_file(), question_set
        assert question_set.book in sources, f"{question_set.name}: no ingest line for {question_set.book}"
        assert load_questions(PROJECT / question_set.questions), question_set


def _question(id: str, kind: str, question: str, file: str = "", phrase: str = "") -> str:
    gold = [{"file": file, "heading": ""}] if file else []
    return json.dumps({"id": id, "kind": kind, "question": question, "gold": gold,
                       "answer_phrases": [phrase] if phrase else []})


def test_one_command_fetches_ingests_answers_and_tabulates_and_a_second_run_resumes(tmp_path: Path) -> None:
    book = tmp_path / "fetched"
    readme = tmp_path / "README.md"
    readme.write_text(f"Two editions of one book, as a set's README gives them:\n\n```bash\n"
                      f"cp -r {SAMPLE_BOOK} {book}\n"
                      f"lectern ingest {book} --book guide --data-dir data\n"
                      f"lectern ingest {book} --book handbook --data-dir data\n```\n")
    questions = tmp_path / "guide.jsonl"
    questions.write_text("\n".join([
        _question("g1", "answerable", "How long does the widget keep my conversations in the browser?",
                  "03-for-readers/04-privacy-and-history.md", "seven days"),
        _question("g2", "unanswerable", "How do I export my reading history to Kindle?"),
    ]) + "\n")
    sets = tmp_path / "sets.tsv"
    sets.write_text(f"guide-a\t{questions}\tguide\nhandbook-a\t{questions}\thandbook\nnowhere\t{questions}\tnowhere\n")
    results = tmp_path / "results"
    command = [sys.executable, "eval/run_sets.py", str(results), "--sets", str(sets), "--readme", str(readme),
               "--data-dir", str(tmp_path / "data"), "--fetch", "--baseline"]

    first = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=900, check=False)

    assert first.returncode == 0, first.stderr[-3000:]
    assert (book / "03-for-readers/04-privacy-and-history.md").is_file()  # fetched by the block's line
    answered = {r["id"]: r for r in map(json.loads, (results / "guide-a.jsonl").read_text().splitlines())}
    assert answered["g1"]["citations"][0]["source_path"] == "03-for-readers/04-privacy-and-history.md"
    assert answered["g1"]["judgment"] and answered["g2"]["judgment"] is not None  # signals for train_judge.py
    assert json.loads((results / "no-decline-judge.json").read_text())["found_at"] == 0
    assert json.loads((results / "guide-a.baseline.json").read_text())["gold_first"] == 1.0
    assert "left out nowhere: no `lectern ingest … --book nowhere` line" in first.stderr
    table = first.stdout.splitlines()
    assert table[0].startswith("| set | plain: gold first | no decline: first | first | false abst. |")
    assert [row.split(" | ")[:3] for row in table[2:]] == [
        ["| guide-a", "1.00", "1.00"], ["| handbook-a", "1.00", "1.00"], ["| mean over sets", "1.000", "1.000"]]

    second = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=900, check=False)

    assert second.returncode == 0, second.stderr[-3000:]
    assert second.stdout == first.stdout
    log = (results / "run.log").read_text()
    assert log.count("lectern eval") == 2 and log.count("lectern ingest") == 2  # nothing run again
