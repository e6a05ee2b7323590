"""Jupyter Books (version 1): `_toc.yml` gives the pages, their order and parts; pages are MyST
markdown, notebooks or reStructuredText, built by Sphinx, so URLs and ids are Sphinx's."""

from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from ingest_scripts.layouts.base import SUFFIXES, Layout, LayoutError, read_yaml
from ingest_scripts.layouts.sphinx import DocutilsIds, excluded, sphinx_pattern
from ingest_scripts.permalinks import HeadingSlugger


class JupyterBook(Layout):
    name = "jupyterbook"
    kind = "markdown, notebooks or reStructuredText"

    def __init__(self, root: Path):
        super().__init__(root)
        toc = read_yaml(root / "_toc.yml")
        if not toc.get("root"):
            raise LayoutError(f"{root / '_toc.yml'}: names no root page (`root: intro`)")
        config = read_yaml(root / "_config.yml") if (root / "_config.yml").is_file() else {}
        self.toc_only = config.get("only_build_toc_files") is True
        patterns = config.get("exclude_patterns") or []
        self.excluded = [sphinx_pattern(str(p)) for p in patterns] if isinstance(patterns, list) else []
        self.order: list[str] = []  # pages' names without suffix, in the table of contents' order
        self.parts: dict[str, str] = {}  # a page's (or a glob's) part caption
        self.globs: set[str] = set()  # entries that are patterns (`- glob: chapters/*`)
        self._read_entries([{"file": toc["root"]}], "")
        for part in toc.get("parts") or []:
            if isinstance(part, dict):
                self._read_entries(part.get("chapters") or part.get("sections") or [], str(part.get("caption") or ""))
        self._read_entries(toc.get("chapters") or toc.get("sections") or [], "")

    @staticmethod
    def found(root: Path) -> bool:
        return (root / "_toc.yml").is_file()

    def _read_entries(self, entries: object, part: str) -> None:
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict):
                continue
            for key in ("file", "glob"):
                if entry.get(key):
                    name = str(entry[key]).removeprefix("./")
                    if PurePosixPath(name).suffix in SUFFIXES[self.kind]:
                        name = str(PurePosixPath(name).with_suffix(""))
                    self.order.append(name)
                    self.parts[name] = part
                    if key == "glob":
                        self.globs.add(name)
            self._read_entries(entry.get("sections") or [], part)

    def pages(self, files: list[Path]) -> tuple[list[Path], list[Path]]:
        """The table of contents' pages in its order, then the others the build still makes
        (unless `only_build_toc_files`; never those `exclude_patterns` names)."""
        everything = files
        files = [p for p in files if not excluded(p.relative_to(self.root).as_posix(), self.excluded)]
        by_name = {path.relative_to(self.root).with_suffix("").as_posix(): path for path in files}
        for pattern in self.globs:  # a glob's pages, in name order, under its part
            self.parts.update({name: self.parts[pattern] for name in by_name if fnmatchcase(name, pattern)})
        names = [
            name for entry in self.order
            for name in (sorted(n for n in by_name if fnmatchcase(n, entry)) if entry in self.globs else [entry])
        ]
        listed = [by_name[name] for name in dict.fromkeys(names) if name in by_name]
        rest = [] if self.toc_only else [path for path in files if path not in listed]
        published = listed + rest
        return published, [path for path in everything if path not in published]

    def module_of(self, rel: str) -> str | None:
        return self.parts.get(PurePosixPath(rel).with_suffix("").as_posix(), "")

    def url_path(self, rel: str, front_matter: dict) -> str:
        return "/" + quote(PurePosixPath(rel).with_suffix(".html").as_posix())

    def page_id(self, rel: str, front_matter: dict) -> str:
        return PurePosixPath(rel).with_suffix("").as_posix()

    def slugger(self) -> HeadingSlugger:
        return DocutilsIds()
