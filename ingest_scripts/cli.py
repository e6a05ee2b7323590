"""`lectern ingest`: index a folder of markdown (Docusaurus, MkDocs, mdBook or plain) or a built
HTML site."""

import json
import shlex
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from backend.config import Settings
from backend.retrieval.calibration import Calibration
from backend.retrieval.embeddings import EmbeddingError, make_embedder
from backend.retrieval.index import BookIndex, IndexUnavailable, open_client, validate_book_id
from ingest_scripts.layouts import LAYOUTS, LayoutError
from ingest_scripts.manifest import Manifest
from ingest_scripts.markdown import FrontMatterError, estimate_tokens
from ingest_scripts.pdf import PdfCache
from ingest_scripts.pipeline import BookPlan, IngestError, IngestReport, ingest, plan_book

err = Console(stderr=True, soft_wrap=True)
LayoutChoice = Enum("LayoutChoice", {name: name for name in LAYOUTS}, type=str)


class PassageRate(ProgressColumn):
    def render(self, task: Task) -> str:
        return f"{task.speed:.1f} passages/s" if task.speed else ""


def fail(message: str) -> typer.Exit:
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(code=1)


INGEST_TIMEOUT_S = 120.0  # writing a batch of 256 points to a distant Qdrant Cloud can take a while


def ingest_command(
    path: Annotated[Path, typer.Argument(
        help="The docs folder (Docusaurus docs/, an MkDocs or mdBook project, plain markdown), "
        "a built site's output folder (HTML), or PDFs (a PDF, or a folder of them; PDFs in a "
        "docs folder are read too).")],
    book: Annotated[str, typer.Option(help="Book id: lower-case letters, digits, - or _.")],
    base_url: Annotated[str, typer.Option(help="Site origin for citation links.")] = "",
    data_dir: Annotated[
        Path | None, typer.Option(help="Where the index lives [default: $LECTERN_DATA_DIR or ./data]")
    ] = None,
    manifest: Annotated[
        Path | None, typer.Option(help="lectern-manifest.json written by the Docusaurus plugin.")
    ] = None,
    layout: Annotated[LayoutChoice | None, typer.Option(
        help="How the site publishes the markdown, or html for a built site [default: html for "
        "HTML pages without markdown, else detected from docusaurus.config.*, mkdocs.yml, "
        "book.toml/SUMMARY.md; else docusaurus]")] = None,
    dry_run: Annotated[bool, typer.Option(help="Print the chunk plan; embed nothing.")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="Also print what was re-used, left out and measured.")] = False,
) -> None:
    """Index a book so readers' questions can be answered from it."""
    settings = Settings() if data_dir is None else Settings(LECTERN_DATA_DIR=data_dir)
    out = Console()
    try:
        validate_book_id(book)
        loaded_manifest = Manifest.load(manifest) if manifest else None
        plan = plan_book(path, book, base_url, loaded_manifest, layout.value if layout else None,
                         pdf_cache=PdfCache(settings.pdf_cache_dir(book)))
        if dry_run:
            print_plan(out, plan, json_output)
            return
        client = open_client(settings, timeout=INGEST_TIMEOUT_S)
        try:
            with Progress(
                TextColumn("[bold]embedding"), BarColumn(), MofNCompleteColumn(), PassageRate(),
                TimeRemainingColumn(),
                console=err, transient=True, disable=json_output,
            ) as progress:
                task = progress.add_task("embed", total=None)
                index = BookIndex(client, book)
                report = ingest(
                    plan, index, make_embedder(settings),
                    on_progress=lambda done, total: progress.update(task, completed=done, total=total),
                    files_dir=settings.files_dir(book),
                )
                index.add_metadata({"folder": str(path.resolve())})  # the console lists its files
        finally:
            client.close()
    except (IngestError, FrontMatterError, LayoutError, IndexUnavailable, EmbeddingError, ValueError) as exc:
        raise fail(str(exc)) from None
    if json_output:
        typer.echo(report.model_dump_json(indent=2))
        return
    print_summary(out, report)
    if verbose:
        print_details(out, report)
    print_where_and_next(out, settings, book, data_dir)


def print_plan(out: Console, plan: BookPlan, json_output: bool) -> None:
    if json_output:
        typer.echo(json.dumps([c.model_dump() | {"tokens": estimate_tokens(c.text)} for c in plan.chunks], indent=2))
        return
    table = Table("source", "section", "tokens", "url", title=f"{len(plan.chunks)} chunks ({plan.layout})")
    for chunk in plan.chunks:
        table.add_row(chunk.source_path, chunk.section or "(top)", str(estimate_tokens(chunk.text)), chunk.url)
    out.print(table)


def print_summary(out: Console, report: IngestReport) -> None:
    """What a maintainer needs after every ingest: what the book holds now, and anything to fix."""
    held = f"{report.pages} pages, {report.sections} sections, {report.chunks} passages"
    if report.unchanged:
        out.print(f"[green]✓[/] {report.book} is up to date ({held}); nothing changed since the last ingest "
                  f"({report.seconds:.1f} s).", highlight=False)
    else:
        out.print(f"[green]✓[/] {report.book}: {held}, indexed in {report.seconds:.1f} s.", highlight=False)
    for problem in report.problems:  # files that could not be read: the maintainer can fix these
        out.print(f"  [yellow]warning:[/] {problem}", highlight=False)
    if report.skipped_files:
        out.print(f"  {len(report.skipped_files)} files left out (drafts, unlisted, empty, or not content); "
                  "--verbose names them.", highlight=False)


def print_details(out: Console, report: IngestReport) -> None:
    """--verbose: how the index was built and measured."""
    out.print(f"  layout: {report.layout}; collection: {report.collection}", highlight=False)
    if report.rebuild_reason:
        out.print(f"  rebuilt from scratch: {report.rebuild_reason}", highlight=False)
    if not report.unchanged:
        rate = f" ({report.embedded / report.seconds:.1f} passages/s)" if report.embedded and report.seconds else ""
        out.print(f"  passages: {report.embedded} embedded{rate}, {report.reused} re-used from the last "
                  f"build, {report.removed} removed", highlight=False)
    if report.dropped_questions:
        out.print(f"  quiz questions without an answer left out: {report.dropped_questions}", highlight=False)
    for name in report.skipped_files:
        out.print(f"  left out: {name}", highlight=False)
    _print_calibration(out, report.calibration)


def print_where_and_next(out: Console, settings: Settings, book: str, data_dir: Path | None) -> None:
    if settings.qdrant_url:
        out.print(f"  Index: the Qdrant server at {settings.qdrant_url}", highlight=False, soft_wrap=True)
    else:
        out.print(f"  Index: {settings.qdrant_path.resolve()}", highlight=False, soft_wrap=True)
    given = f" --data-dir {shlex.quote(str(data_dir))}" if data_dir else ""
    out.print(f"  Next: [bold]lectern serve --book {book}{given}[/]  (the widget and API at http://127.0.0.1:8000)",
              highlight=False, soft_wrap=True)
    out.print(f"    or: [bold]lectern ask \"How do I …?\" --book {book}{given}[/]", highlight=False, soft_wrap=True)


def _print_calibration(out: Console, calibration: Calibration | None) -> None:
    if calibration:
        out.print(
            f"  calibrated on {calibration.probes - calibration.left_out} everyday questions"
            + (f" ({calibration.left_out} more the book is about left out)" if calibration.left_out else "")
            + ": a question is related to this "
            f"book above a best-passage similarity of {calibration.off_topic_similarity:.3f}; support stands out "
            f"from chance at {calibration.answerable:.3f} (at {calibration.answerable_on_one_page:.3f} when its "
            f"best passages are all on one page), twice as far at {calibration.confident:.3f} (the answer judge "
            "reads support against these)",
            highlight=False,
        )
