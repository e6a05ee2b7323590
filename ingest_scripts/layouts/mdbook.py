"""mdBook books: `SUMMARY.md` lists the chapters, mdBook's anchors."""

import re
from pathlib import Path, PurePosixPath

from ingest_scripts.layouts.base import Layout, LayoutError
from ingest_scripts.permalinks import HeadingSlugger


def _mdbook_slug(text: str) -> str:
    """mdBook's normalize_id: alphanumerics, `_` and `-` (ASCII lower-cased), each space a `-`."""
    kept = (
        ch.lower() if ch.isascii() else ch
        for ch in text
        if ch.isalnum() or ch in "_-" or ch.isspace()
    )
    return "".join("-" if ch.isspace() else ch for ch in kept)


_SUMMARY_LINK = re.compile(r"^(?P<indent>\s*)(?:[-*+]|\d+\.)?\s*\[(?P<title>[^\]]*)\]\((?P<target>[^)]*)\)")
_SUMMARY_PART = re.compile(r"^#+\s+(?P<title>.+?)\s*$")


class MdBook(Layout):
    name = "mdbook"

    def __init__(self, root: Path):
        super().__init__(root)
        src = "src"
        if (root / "book.toml").is_file():
            config = (root / "book.toml").read_text(encoding="utf-8")
            match = re.search(r'^\s*src\s*=\s*"([^"]+)"', config, re.MULTILINE)
            src = match.group(1) if match else src
        self.docs = root / src if (root / src / "SUMMARY.md").is_file() else root
        self.order: list[str] = []
        self.modules: dict[str, str] = {}
        self._read_summary(self.docs / "SUMMARY.md")

    @staticmethod
    def found(root: Path) -> bool:
        return any((root / name).is_file() for name in ("book.toml", "SUMMARY.md", "src/SUMMARY.md"))

    def _read_summary(self, summary: Path) -> None:
        if not summary.is_file():
            raise LayoutError(f"{summary}: mdBook's SUMMARY.md is missing")
        part, chapter, first_heading = "", "", True
        for line in summary.read_text(encoding="utf-8").splitlines():
            if heading := _SUMMARY_PART.match(line):
                part = "" if first_heading else heading["title"]  # the first is "# Summary"
                first_heading = False
                continue
            link = _SUMMARY_LINK.match(line)
            if not link or not link["target"].strip():  # a draft chapter has no file
                continue
            rel = link["target"].strip().removeprefix("./").split("#", 1)[0]
            if not link["indent"]:
                chapter = link["title"]
            self.order.append(rel)
            self.modules[rel] = (part or link["title"]) if not link["indent"] else chapter

    def pages(self, files: list[Path]) -> tuple[list[Path], list[Path]]:
        """Only what SUMMARY.md lists is published."""
        by_rel = {p.relative_to(self.docs).as_posix(): p for p in files if p.is_relative_to(self.docs)}
        listed = [by_rel[rel] for rel in dict.fromkeys(self.order) if rel in by_rel]
        return listed, [p for p in files if p not in listed]

    def module_of(self, rel: str) -> str | None:
        return self.modules.get(rel)

    def url_path(self, rel: str, front_matter: dict) -> str:
        path = PurePosixPath(rel)
        name = "index" if path.name.lower() == "readme.md" else path.name.rsplit(".", 1)[0]
        folder = "" if str(path.parent) == "." else f"{path.parent}/"
        return f"/{folder}{name}.html"

    def slugger(self) -> HeadingSlugger:
        return HeadingSlugger(_mdbook_slug)
