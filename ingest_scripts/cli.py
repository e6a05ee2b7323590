"""`lectern ingest`: index a folder of markdown (Docusaurus, MkDocs, mdBook or plain) or a built
HTML site."""

import json
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
) -> None:
    """Index a book so readers' questions can be answered from it."""
    settings = Settings() if data_dir is None else Settings(LECTERN_DATA_DIR=data_dir)
    out = Console()
    try:
        validate_book_id(book)
        loaded_manifest = Manifest.load(manifest) if manifest else None
        plan = plan_book(path, book, base_url, loaded_manifest, layout.value if layout else None)
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
    else:
        print_summary(out, report)


def print_plan(out: Console, plan: BookPlan, json_output: bool) -> None:
    if json_output:
        typer.echo(json.dumps([c.model_dump() | {"tokens": estimate_tokens(c.text)} for c in plan.chunks], indent=2))
        return
    table = Table("source", "section", "tokens", "url", title=f"{len(plan.chunks)} chunks ({plan.layout})")
    for chunk in plan.chunks:
        table.add_row(chunk.source_path, chunk.section or "(top)", str(estimate_tokens(chunk.text)), chunk.url)
    out.print(table)


def print_summary(out: Console, report: IngestReport) -> None:
    if report.unchanged:
        out.print(f"[green]✓[/] {report.book} ({report.layout}): unchanged ({report.pages} pages, {report.chunks} chunks) in {report.seconds:.1f}s")
        _print_calibration(out, report.calibration)  # measured again when its method changed
        return
    if report.rebuild_reason:
        out.print(f"[yellow]rebuilt from scratch:[/] {report.rebuild_reason}")
    out.print(
        f"[green]✓[/] {report.book} ({report.layout}): {report.pages} pages, {report.chunks} chunks "
        f"({report.embedded} embedded, {report.reused} reused, {report.removed} removed) in {report.seconds:.1f}s"
        + (f" ({report.embedded / report.seconds:.1f} passages/s)" if report.embedded and report.seconds else "")
    )
    _print_calibration(out, report.calibration)
    if report.dropped_questions:
        out.print(f"  dropped {report.dropped_questions} quiz questions without an answer")
    for problem in report.problems:
        out.print(f"  [yellow]warning:[/] {problem}", highlight=False)
    if report.skipped_files:
        out.print(f"  skipped {len(report.skipped_files)} files (draft, unlisted, empty, not content, or what other pages say): {', '.join(report.skipped_files)}")


def _print_calibration(out: Console, calibration: Calibration | None) -> None:
    if calibration:
        out.print(
            f"  calibrated on {calibration.probes - calibration.left_out} everyday questions"
            + (f" ({calibration.left_out} more the book is about left out)" if calibration.left_out else "")
            + ": a question is related to this "
            f"book above a best-passage similarity of {calibration.off_topic_similarity:.3f}; support stands out "
            f"from chance at {calibration.answerable:.3f} (at {calibration.answerable_on_one_page:.3f} when its "
            f"best passages are all on one page), twice as far at {calibration.confident:.3f} (the answer judge "
            "reads support against these)"
        )
