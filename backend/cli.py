"""The `lectern` command line."""

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated
from urllib.parse import urlsplit

import typer
from pydantic import TypeAdapter, ValidationError
from rich.console import Console
from rich.markdown import Markdown
from rich.markup import escape
from rich.table import Table

from backend.agent.errors import ConfigError, ModelUnavailable
from backend.config import Settings
from backend.question import Question, Turn
from backend.registry import RegistryError
from backend.retrieval.embeddings import EmbeddingError
from backend.retrieval.index import BookNotIngested, IndexInUse, IndexUnavailable
from backend.retrieval.search import RetrievalMode
from ingest_scripts.cli import LayoutChoice, fail, ingest_command

if TYPE_CHECKING:
    from backend.agent.agent import AnswerEngine

# The answer engine (the agents SDK, the OpenAI client) is imported by the commands that answer,
# not at start: `lectern ingest` starts 1.6 s sooner without it.

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Lectern: ask this book.")
app.command("ingest")(ingest_command)

BookOption = Annotated[str | None, typer.Option(help="Book id [default: $LECTERN_BOOK]")]
DataDirOption = Annotated[
    Path | None, typer.Option(help="Where the index lives [default: $LECTERN_DATA_DIR or ./data]")
]
SERVICE_ERRORS = (IndexUnavailable, BookNotIngested, EmbeddingError, ModelUnavailable, ConfigError, RegistryError)


@app.callback()
def main() -> None:
    """Lectern: grounded, cited answers from your book."""


def _engine(book: str | None, data_dir: Path | None, mode: RetrievalMode = "hybrid") -> "AnswerEngine":
    from backend.engine import Library

    settings = Settings() if data_dir is None else Settings(LECTERN_DATA_DIR=data_dir)
    try:
        return Library(settings).engine(book, mode)
    except SERVICE_ERRORS as exc:
        raise fail(str(exc)) from None


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    book: BookOption = None,
    data_dir: DataDirOption = None,
    watch: Annotated[Path | None, typer.Option(
        help="The book's folder: re-ingest it in this process whenever it changes.")] = None,
    base_url: Annotated[str | None, typer.Option(
        help="With --watch: site origin for citation links.")] = None,
    layout: Annotated[LayoutChoice | None, typer.Option(
        help="With --watch: how the site publishes the book [default: detected]")] = None,
) -> None:
    """Run the HTTP API, the widget and the demo site (http://HOST:PORT/demo/)."""
    import uvicorn

    from backend.app import SERVER_OPTIONS, create_app

    overrides = {
        "LECTERN_BOOK": book, "LECTERN_DATA_DIR": data_dir, "LECTERN_WATCH": watch,
        "LECTERN_BASE_URL": base_url, "LECTERN_LAYOUT": layout.value if layout else None,
    }
    try:
        settings = Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        raise fail(f"{exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}") from None
    if settings.watch is not None and not settings.watch.is_dir():
        raise fail(f"--watch {settings.watch}: no such folder")
    try:
        application = create_app(settings)
    except SERVICE_ERRORS as exc:
        raise fail(str(exc)) from None
    if settings.qdrant_url is None:  # embedded Qdrant: one process per data folder, claimed now
        try:
            application.state.library.client  # noqa: B018
        except IndexInUse as exc:  # served or ingested by another process: this one would never read it
            raise fail(f"not serving: {exc}") from None
        except IndexUnavailable:
            pass  # damaged: the server starts, answers 503 and /api/health names the damage
    uvicorn.run(application, host=host, port=port, **SERVER_OPTIONS)  # type: ignore[arg-type]


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="What to ask the book.")],
    selection: Annotated[str | None, typer.Option(help="A passage the question is about.")] = None,
    history: Annotated[
        Path | None, typer.Option(help="JSON file: earlier turns [{role, content}, …].")
    ] = None,
    book: BookOption = None,
    data_dir: DataDirOption = None,
    json_output: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Ask the book one question and print the cited answer."""
    turns: list[Turn] = []
    if history:
        try:
            turns = TypeAdapter(list[Turn]).validate_json(history.read_text(encoding="utf-8"))
        except (OSError, ValidationError) as exc:
            raise fail(f"{history}: not a list of {{role, content}} turns ({exc})") from None
    try:
        asked = Question(text=question, selected_text=selection, history=turns)
    except ValidationError as exc:
        raise fail(f"the question cannot be asked: {exc.errors()[0]['msg']}") from None
    engine = _engine(book, data_dir)
    try:
        answer = asyncio.run(engine.answer(asked))
    except SERVICE_ERRORS as exc:
        raise fail(str(exc)) from None
    out = Console()
    if json_output:
        typer.echo(answer.model_dump_json(indent=2))
        return
    out.print(Markdown(answer.text))
    for c in answer.citations:
        out.print(f"  [{c.number}] {escape(c.label)}  [dim]{escape(c.url)}[/]", highlight=False)
    out.print(f"[dim]status: {answer.status} · confidence: {answer.confidence}[/]")


@app.command("eval")
def evaluate(
    questions: Annotated[Path, typer.Argument(help="Questions, one JSON object a line.")],
    out: Annotated[Path, typer.Option(help="Where to write one result line per question.")],
    retrieval: Annotated[str, typer.Option(help="hybrid, dense or lexical.")] = "hybrid",
    book: BookOption = None,
    data_dir: DataDirOption = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print metrics as JSON.")] = False,
) -> None:
    """Answer a question set and print first/any-citation hit, phrase hit, abstention, latency."""
    from backend.evaluation import load_questions, run, score, write_results

    if retrieval not in ("hybrid", "dense", "lexical"):
        raise fail("--retrieval must be hybrid, dense or lexical")
    try:
        loaded = load_questions(questions)
    except (OSError, ValueError) as exc:
        raise fail(str(exc)) from None
    engine = _engine(book, data_dir, retrieval)  # type: ignore[arg-type]
    try:
        results = asyncio.run(run(engine, loaded))
    except SERVICE_ERRORS as exc:
        raise fail(str(exc)) from None
    write_results(out, results)
    report = score(loaded, results)
    if json_output:
        typer.echo(json.dumps(report, indent=2))
        return
    console = Console(width=max(Console().width, 120))
    kinds = list(report)
    table = Table("metric", *kinds, title=f"{retrieval} retrieval · {len(loaded)} questions")
    metric_names = sorted({m for metrics in report.values() for m in metrics})
    for name in metric_names:
        values = [report[kind].get(name) for kind in kinds]
        table.add_row(name, *("" if v is None else f"{v:g}" for v in values))
    console.print(table)


@app.command()
def bench(
    url: Annotated[str, typer.Argument(help="Base URL of a running Lectern server.")],
    questions: Annotated[Path, typer.Option(help="JSONL file with a \"question\" per line (eval format).")],
    readers: Annotated[int, typer.Option(help="Simulated readers asking at the same time.")] = 50,
    seconds: Annotated[float, typer.Option(help="How long to run.")] = 60,
    think: Annotated[str, typer.Option(
        help="Seconds a reader reads before asking again: a range (2-6, uniform) or a mean (10, exponential); 0 for none."
    )] = "10",
) -> None:
    """Load-test a running server with simulated readers; prints latency and throughput."""
    from backend.bench import ThinkTime, run_bench

    try:
        reading = ThinkTime.parse(think)
    except ValueError as exc:
        raise fail(str(exc)) from None

    try:
        asked = [json.loads(line)["question"] for line in questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, ValueError, KeyError) as exc:
        raise fail(f"{questions}: cannot read questions ({exc})") from None
    report = asyncio.run(run_bench(url.rstrip("/"), asked, readers, seconds, reading))
    typer.echo(json.dumps(report.summary(), indent=2))
    if report.errors:
        raise typer.Exit(code=1)


@app.command()
def mcp(book: BookOption = None, data_dir: DataDirOption = None) -> None:
    """Serve the book to an MCP client (a coding assistant, an agent) over stdio: tools
    search_book, answer_question and get_page, and the book's outline as a resource."""
    from backend.api.mcp import book_server
    from backend.engine import Library

    settings = Settings(**{k: v for k, v in {"LECTERN_BOOK": book, "LECTERN_DATA_DIR": data_dir}.items() if v})
    try:
        library = Library(settings)
        library.engine().retriever.corpus  # noqa: B018 (loads the book before the first call)
        library.embedder.embed_query("warm up")
    except SERVICE_ERRORS as exc:
        raise fail(str(exc)) from None
    try:
        book_server(library, settings).run()  # stdio: stdout carries the protocol, logs go to stderr
    finally:
        library.close()


@app.command()
def batch(
    questionnaire: Annotated[Path, typer.Argument(help="CSV file with a header row.")],
    column: Annotated[str, typer.Option(help="The column that holds the questions.")],
    out: Annotated[Path, typer.Option(help="Where to write the answered CSV.")],
    book: BookOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Answer every question of a questionnaire CSV from the book: the file comes back with
    Answer, Status (FOUND / PARTIAL / NOT_FOUND), Citations and Review columns."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from backend.questionnaires import QuestionnaireError, answer, export_csv, new_questionnaire

    try:
        questionnaire, rows = new_questionnaire(book or "book", questionnaire.stem, column, questionnaire.read_bytes())
    except OSError as exc:
        raise fail(f"{questionnaire}: cannot read ({exc.strerror})") from None
    except QuestionnaireError as exc:
        raise fail(f"{questionnaire}: {exc}") from None
    engine = _engine(book, data_dir)

    async def answer_all() -> None:
        with Progress(TextColumn("[bold]answering"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=Console(stderr=True), transient=True) as progress:
            task = progress.add_task("rows", total=len(rows))
            for row in rows:
                if row.question:
                    row.generated = await answer(engine, row.question)
                progress.advance(task)

    try:
        asyncio.run(answer_all())
    except SERVICE_ERRORS as exc:
        raise fail(str(exc)) from None
    out.write_text(export_csv(questionnaire.header, rows, "generated"), encoding="utf-8")
    counts = {status: sum(1 for r in rows if r.generated and r.generated.status == status)
              for status in ("FOUND", "PARTIAL", "NOT_FOUND")}
    Console().print(f"{len(rows)} rows → {out}: " + ", ".join(f"{n} {s}" for s, n in counts.items()))


@app.command()
def report(
    book: BookOption = None,
    data_dir: DataDirOption = None,
    limit: Annotated[int, typer.Option(help="Rows per table.")] = 10,
    json_output: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """What readers ask, what went unanswered, and their feedback (from the database): the
    questions `lectern serve` answered (the widget, the HTTP API, MCP). `lectern ask`, `eval` and
    `batch` are a maintainer's own tries and are not recorded."""
    from backend.store import open_store

    settings = Settings() if data_dir is None else Settings(LECTERN_DATA_DIR=data_dir)
    book_id = book or settings.book
    if settings.database_url:
        url = urlsplit(settings.database_url)
        database = f"PostgreSQL at {url.hostname}:{url.port or 5432}{url.path}"  # never the password
    else:
        database = str((settings.data_dir / "lectern.sqlite3").resolve())

    async def gather() -> dict:
        store = open_store(settings)
        try:
            await store.migrate()
            return {
                "stats": await store.stats(book_id),
                "asked": await store.top_questions(book_id, limit),
                "unanswered": await store.top_questions(book_id, limit, unanswered=True),
                "feedback": await store.feedback(book_id, limit),
            }
        finally:
            await store.close()

    try:
        found = asyncio.run(gather())
    except (OSError, ConnectionError) as exc:
        raise fail(f"cannot read the database: {exc}") from None
    stats = found["stats"]
    if json_output:
        payload = {key: [row.model_dump(mode="json") for row in rows] for key, rows in found.items() if key != "stats"}
        payload["stats"] = stats.model_dump() | {"not_found_rate": round(stats.not_found_rate, 3)}
        typer.echo(json.dumps(payload, indent=2))
        return
    console = Console()
    console.print(
        f"[bold]{book_id}[/]: {stats.questions} question{'' if stats.questions == 1 else 's'} from readers, {stats.not_found} not found "
        f"({stats.not_found_rate:.0%}), feedback 👍 {stats.helpful} · 👎 {stats.unhelpful}", highlight=False
    )
    console.print(
        f"[dim]Counted: the questions `lectern serve` answered (the widget, the HTTP API, MCP), stored in "
        f"{database}. `lectern ask`, `eval` and `batch` are your own tries and are not counted.[/]",
        highlight=False, soft_wrap=True,  # a path is never broken across lines
    )
    if not stats.questions:
        return
    for title, rows in (("Most asked", found["asked"]), ("Not answered by the book", found["unanswered"])):
        table = Table("times", "question", "last asked", title=title)
        for row in rows:
            table.add_row(str(row.times), row.question, f"{row.last_asked:%Y-%m-%d %H:%M}")
        console.print(table)
    table = Table("helpful", "question", "comment", title="Latest feedback")
    for entry in found["feedback"]:
        table.add_row("yes" if entry.helpful else "no", entry.question, entry.comment or "")
    console.print(table)
