"""Every question set, from fetching its book to the per-book table, in one command.

    python eval/run_sets.py RESULTS [--sets eval/questions/sets.tsv] [--only NAME ...]
        [--data-dir data] [--fetch] [--no-ingest] [--baseline] [--readme eval/questions/README.md]

For each set of SETS.tsv (`name<TAB>questions.jsonl<TAB>book`, eval/train_judge.py's format),
its book is ingested under its id (once, and only for a set still to answer) from the folder
that eval/questions/README.md's `lectern ingest FOLDER --book ID` line names; ingest is
incremental, so a book ingested already is only checked. With `--fetch`, a missing folder is
made by the fetch lines of the README block that ingests it (every line but the `lectern` ones),
when none of that block's folders is there yet. The set is then answered by `lectern eval` with
a judge that declines nothing (the packaged judge with `found_at` 0; `PYTHONHASHSEED=0`) into
RESULTS/NAME.jsonl; a set whose results are there is not run again, so a stopped run resumes.
`--baseline` also runs the plain retriever on it (RESULTS/NAME.baseline.json).

Last it prints a markdown table: per set, the plain retriever's gold-first rate, the first
citation with no decline, and the figures of the answers decided by the judge learned without
the set's book, which is learned on the other books of the run (eval/train_judge.py; a book
alone has none, and its rows are as run); the last row is the mean over sets. `python
eval/train_judge.py SETS RESULTS --judge backend/grounding/judge.json` gives more, the packaged
judge's figures too. Sets whose book could not be fetched, ingested or answered are listed on
stderr and left out; the commands' output is in RESULTS/run.log.
"""

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):  # run as `python eval/run_sets.py`: the project's root is not on the path
    sys.path.insert(0, str(PROJECT))
from eval import train_judge

README = PROJECT / "eval" / "questions" / "README.md"
PACKAGED_JUDGE = PROJECT / "backend" / "grounding" / "judge.json"
LEFT_OUT, MEAN = train_judge.LEFT_OUT, train_judge.MEAN
_BLOCK = re.compile(r"```bash\n(.*?)```", re.DOTALL)
_INGEST = re.compile(r"^lectern ingest (\S+) --book (\S+)", re.MULTILINE)


@dataclass(frozen=True)
class QuestionSet:
    name: str
    questions: Path
    book: str


@dataclass(frozen=True)
class BookSource:
    folder: Path  # what `lectern ingest` reads
    fetch: str  # the shell lines that make it and the other folders of its README block
    block_folders: tuple[Path, ...]  # those folders: the block is run only when none is there


def load_sets(path: Path) -> list[QuestionSet]:
    return [QuestionSet(*row) for row in train_judge.read_sets(path)]


def book_sources(readme: Path = README) -> dict[str, BookSource]:
    """Each book id the README ingests, with its folder and its block's fetch lines. Folders
    are relative to the project (the README's commands run from it)."""
    sources: dict[str, BookSource] = {}
    for block in _BLOCK.findall(readme.read_text(encoding="utf-8")):
        fetch = "\n".join(line for line in block.splitlines() if not line.startswith("lectern "))
        ingests = _INGEST.findall(block)
        folders = tuple(Path(folder) for folder, _ in ingests)
        for folder, book in ingests:
            sources.setdefault(book, BookSource(Path(folder), fetch, folders))
    return sources


def _run(command: list[str] | str, log: Path, env: dict[str, str] | None = None, shell: bool = False) -> bool:
    with log.open("a", encoding="utf-8") as out:
        out.write(f"$ {command if shell else ' '.join(command)}\n")
        out.flush()
        done = subprocess.run(command, cwd=PROJECT, env=env, shell=shell, executable="/bin/bash" if shell else None,
                              stdout=out, stderr=subprocess.STDOUT, check=False)
    return done.returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--sets", type=Path, default=PROJECT / "eval" / "questions" / "sets.tsv")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="these sets only")
    parser.add_argument("--data-dir", type=Path, default=PROJECT / "data")
    parser.add_argument("--fetch", action="store_true", help="fetch a book whose folder is missing")
    parser.add_argument("--no-ingest", action="store_true", help="use the books as ingested already")
    parser.add_argument("--baseline", action="store_true", help="also run the plain retriever")
    parser.add_argument("--readme", type=Path, default=README, help="where the ingest and fetch lines are")
    args = parser.parse_args()

    sets = load_sets(args.sets)
    if args.only:
        unknown = set(args.only) - {s.name for s in sets}
        if unknown:
            parser.error(f"not in {args.sets}: {', '.join(sorted(unknown))}")
        sets = [s for s in sets if s.name in args.only]
    sources = book_sources(args.readme)
    results = args.results.resolve()
    results.mkdir(parents=True, exist_ok=True)
    log = results / "run.log"
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "PYTHONHASHSEED": "0"}
    judge = json.loads(PACKAGED_JUDGE.read_text(encoding="utf-8")) | {"found_at": 0}
    no_decline = results / "no-decline-judge.json"
    no_decline.write_text(json.dumps(judge), encoding="utf-8")

    failed: dict[str, str] = {}
    ingested: set[str] = set()
    for question_set in sets:
        book = question_set.book
        source = sources.get(book)
        if source is None:
            failed[question_set.name] = f"no `lectern ingest … --book {book}` line in {args.readme}"
            continue
        folder = PROJECT / source.folder  # an absolute folder stays itself
        # A block's lines make all its folders; run again over one that is there, they would
        # copy into it (`cp -r` makes a folder inside the one that exists).
        fresh = not any((PROJECT / f).exists() for f in source.block_folders)
        if not folder.exists() and args.fetch and fresh:
            print(f"fetching {book} into {folder}", file=sys.stderr, flush=True)
            # Not `set -e`: each folder is checked after, and one failing line (a dangling link
            # `cp -L` cannot copy) must not stop the block's other books.
            _run(source.fetch, log, env, shell=True)
        if not folder.exists():
            how = "fetch it by hand" if args.fetch else "--fetch, or fetch it by hand"
            failed[question_set.name] = f"{folder} is missing ({how}: {args.readme})"
            continue
        out = results / f"{question_set.name}.jsonl"
        if not out.exists() and not args.no_ingest and book not in ingested:
            print(f"ingesting {book}", file=sys.stderr, flush=True)
            if not _run(["lectern", "ingest", str(folder), "--book", book, "--data-dir", str(args.data_dir)], log, env):
                failed[question_set.name] = f"ingest failed (see {log})"
                continue
            ingested.add(book)
        if not out.exists():
            print(f"answering {question_set.name}", file=sys.stderr, flush=True)
            partial = out.with_suffix(".partial")
            answered = _run(["lectern", "eval", str(question_set.questions), "--book", book,
                             "--data-dir", str(args.data_dir), "--out", str(partial), "--json"],
                            log, env | {"LECTERN_JUDGE": str(no_decline)})
            if not answered:
                failed[question_set.name] = f"eval failed (see {log})"
                continue
            partial.replace(out)
        baseline = results / f"{question_set.name}.baseline.json"
        if args.baseline and not baseline.exists():
            print(f"plain retriever on {question_set.name}", file=sys.stderr, flush=True)
            done = subprocess.run([sys.executable, "benchmarks/baseline_retriever.py", str(folder),
                                   str(question_set.questions), "--json"],
                                  cwd=PROJECT, env=env, capture_output=True, text=True, check=False)
            if done.returncode == 0:
                baseline.write_text(done.stdout, encoding="utf-8")
            else:  # the set's own figures stand; its plain column stays empty
                print(f"the plain retriever failed on {question_set.name}: {done.stderr.strip()[-300:]}",
                      file=sys.stderr)

    ran = [s for s in sets if s.name not in failed]
    for name, why in failed.items():
        print(f"left out {name}: {why}", file=sys.stderr)
    if not ran:
        raise SystemExit("no set was answered")
    samples, every = train_judge.load([(s.name, PROJECT / s.questions, s.book) for s in ran], results)
    print(markdown_table(train_judge.report(samples, every)[0], results))


COLUMNS = (  # (heading, row of train_judge.py's report, metric)
    ("no decline: first", "as run", "first_citation_hit"),
    ("first", LEFT_OUT, "first_citation_hit"),
    ("false abst.", LEFT_OUT, "false_abstention"),
    ("declined", LEFT_OUT, "abstention"),
    ("phrase", LEFT_OUT, "phrase_hit"),
    ("found-prec.", LEFT_OUT, "found_precision"),
    ("high prec.", LEFT_OUT, "high_precision"),
    ("coverage", LEFT_OUT, "cross_lesson_coverage"),
)


def markdown_table(report: dict[str, dict[str, dict[str, float | None]]], results: Path) -> str:
    """The figures as docs/evaluation.md shows them: each set's answers decided by the judge learned
    without its book, beside the plain retriever's gold-first rate (where it was run) and the
    first citation with no decline; the last row is the mean over sets."""
    lines = ["| set | plain: gold first | " + " | ".join(c[0] for c in COLUMNS) + " |",
             "|---" * (len(COLUMNS) + 2) + "|"]
    plain: list[float] = []
    for name, rows in report.items():
        baseline = results / f"{name}.baseline.json"
        if name == MEAN:
            gold_first = f"{sum(plain) / len(plain):.3f}" if plain else ""
        elif baseline.exists():
            plain.append(json.loads(baseline.read_text(encoding="utf-8"))["gold_first"])
            gold_first = f"{plain[-1]:.2f}"
        else:
            gold_first = ""
        figures = [rows[row][metric] for _, row, metric in COLUMNS]
        shown = ["" if f is None else f"{f:.3f}" if name == MEAN else f"{f:.2f}" for f in figures]
        lines.append(f"| {name} | {gold_first} | " + " | ".join(shown) + " |")
    return "\n".join(lines)

if __name__ == "__main__":
    main()
