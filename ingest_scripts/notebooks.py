"""Jupyter notebooks (`.ipynb`) read as the markdown a book built from them shows: markdown cells
as they are, code cells as fenced code in the notebook's language. Outputs are left out: they
are what running the code printed, not what the author wrote, and they are often long (tables,
tracebacks, images)."""

import json


class NotebookError(ValueError):
    """A file that is not a Jupyter notebook (nbformat 4); the message names the file."""


def notebook_markdown(source: str, source_path: str) -> str:
    try:
        notebook = json.loads(source)
    except json.JSONDecodeError as exc:
        raise NotebookError(f"{source_path}:{exc.lineno}: not a notebook (invalid JSON: {exc.msg})") from exc
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise NotebookError(f"{source_path}: not a notebook (no list of cells; nbformat 4 is read)")
    metadata = _mapping(notebook.get("metadata"))
    language = str(
        _mapping(metadata.get("kernelspec")).get("language") or _mapping(metadata.get("language_info")).get("name") or ""
    )
    blocks = []
    for cell in notebook["cells"]:
        if not isinstance(cell, dict):
            continue
        text = cell.get("source") or ""
        text = ("".join(map(str, text)) if isinstance(text, list) else str(text)).strip("\n")
        if not text.strip():
            continue
        if cell.get("cell_type") == "markdown":
            blocks.append(text)
        elif cell.get("cell_type") == "code":
            fence = "````" if "```" in text else "```"
            blocks.append(f"{fence}{language}\n{text}\n{fence}")
    return "\n\n".join(blocks) + "\n"


def _mapping(value: object) -> dict:
    return value if isinstance(value, dict) else {}
