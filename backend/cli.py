"""The `lectern` command line."""

import typer

from ingest_scripts.cli import ingest_command

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Lectern: ask this book.")
app.command("ingest")(ingest_command)


@app.callback()
def main() -> None:
    """Lectern: grounded, cited answers from your book."""
