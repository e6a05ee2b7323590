"""MkDocs projects: `mkdocs.yml`, its `nav`, Python-Markdown's anchors."""

import re
import unicodedata
from pathlib import Path, PurePosixPath

from ingest_scripts.layouts.base import Layout, read_yaml
from ingest_scripts.permalinks import HeadingSlugger


def _mkdocs_slug(text: str) -> str:
    """Python-Markdown's toc slugify: ASCII only, word characters, spaces and hyphens."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


class MkDocs(Layout):
    name = "mkdocs"

    def __init__(self, root: Path):
        super().__init__(root)
        project = root if (root / "mkdocs.yml").is_file() else root.parent  # or its docs folder
        config = read_yaml(project / "mkdocs.yml") if (project / "mkdocs.yml").is_file() else {}
        docs = project / str(config.get("docs_dir") or "docs")
        self.docs = docs if docs.is_dir() and docs.is_relative_to(root) else root
        self.directory_urls = config.get("use_directory_urls", True) is not False
        self.order: list[str] = []
        self.modules: dict[str, str] = {}
        self._read_nav(config.get("nav") or [], "")

    @staticmethod
    def found(root: Path) -> bool:
        return (root / "mkdocs.yml").is_file() or (root.parent / "mkdocs.yml").is_file()

    def _read_nav(self, entries: object, module: str) -> None:
        for entry in entries if isinstance(entries, list) else []:
            items = entry.items() if isinstance(entry, dict) else [("", entry)]
            for title, target in items:
                if isinstance(target, list):  # a section: its title is its pages' module
                    self._read_nav(target, module or str(title))
                elif isinstance(target, str) and target.endswith((".md", ".markdown")):
                    self.order.append(target.removeprefix("./"))
                    self.modules[target.removeprefix("./")] = module

    def pages(self, files: list[Path]) -> tuple[list[Path], list[Path]]:
        inside = [p for p in files if p.is_relative_to(self.docs)]
        position = {rel: i for i, rel in enumerate(self.order)}
        ordered = sorted(inside, key=lambda p: position.get(p.relative_to(self.docs).as_posix(), len(position)))
        return ordered, [p for p in files if p not in inside]

    def module_of(self, rel: str) -> str | None:
        return self.modules.get(rel)

    def url_path(self, rel: str, front_matter: dict) -> str:
        path = PurePosixPath(rel)
        stem = path.name.rsplit(".", 1)[0]
        folder = "" if str(path.parent) == "." else f"{path.parent}/"
        if stem.lower() in ("index", "readme"):
            return f"/{folder}" if self.directory_urls else f"/{folder}index.html"
        return f"/{folder}{stem}/" if self.directory_urls else f"/{folder}{stem}.html"

    def slugger(self) -> HeadingSlugger:
        return HeadingSlugger(_mkdocs_slug, duplicate="{slug}_{n}")
