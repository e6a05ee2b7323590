"""`lectern ask` names each citation as the widget does."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from backend.cli import app as cli
from tests.support.books import copy_data_dir, ingest_into, write_book

FLAT_BOOK = {  # no folders, so no modules
    "tides.md": """---
title: Tides
---
# Tides

The Moon's gravity raises two bulges of ocean water on opposite sides of the Earth, so most
coasts see two high tides and two low tides every lunar day of 24 hours and 50 minutes.

## Spring Tides

When the Sun and the Moon line up, at new and full moon, their pulls add up and the tidal
range is at its largest: these are the spring tides.
""",
    "waves.md": """---
title: Waves
---
# Waves

## Swell

Swell is made of waves that have travelled far from the storm that raised them; its long,
regular crests can cross a whole ocean.
""",
}


@pytest.fixture(scope="module")
def sea(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sea")
    ingest_into(root / "data", write_book(root / "docs", FLAT_BOOK), "sea")
    return root / "data"


@pytest.mark.parametrize(("question", "named"), [
    ("How many high tides do most coasts see every lunar day?", "Tides"),  # the opening section: by the page's title
    ("What are spring tides?", "Tides · Spring Tides"),
])
def test_citations_of_a_book_without_modules_are_named_by_page_and_section(
    sea: Path, tmp_path: Path, question: str, named: str
) -> None:
    data = copy_data_dir(sea, tmp_path / "data")  # one process may open an embedded index once
    result = CliRunner().invoke(cli, ["ask", question, "--book", "sea", "--data-dir", str(data)])
    assert result.exit_code == 0, result.output
    first = next(line.strip() for line in result.output.splitlines() if line.strip().startswith("[1] "))
    assert first.split("  ")[0] == f"[1] {named}", result.output
