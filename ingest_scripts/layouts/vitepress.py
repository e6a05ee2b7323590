"""VitePress sites from their sources: VitePress's URLs and slugs, Vue's interpolations left out."""

import re
import unicodedata
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from ingest_scripts.layouts.base import Layout, listed_first, sidebar_items
from ingest_scripts.permalinks import HeadingSlugger

_VITEPRESS_CONFIGS = tuple(  # as VitePress 1 looks for them, a config/ folder first
    f"{name}.{suffix}" for name in ("config/index", "config") for suffix in ("js", "ts", "mjs", "mts")
)
_VITEPRESS_SPECIAL = re.compile(r"[\s~`!@#$%^&*()\-_+=\[\]{}|\\;:\"'“”‘’<>,.?/]+")
_VUE_OUTSIDE_CODE = re.compile(r"(```.*?```|~~~.*?~~~|`[^`\n]*`)|\{\{.*?\}\}|^[ \t]*\[\[toc\]\][ \t]*$", re.DOTALL | re.MULTILINE)


def _vitepress_slug(text: str) -> str:
    """VitePress's slugify (@mdit-vue/shared): accents off, runs of spaces and punctuation a
    single `-`, a leading digit after `_`, lower case."""
    text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not "\u0300" <= ch <= "\u036f")
    text = re.sub(r"[\u0000-\u001f]", "", text)
    text = re.sub(r"-{2,}", "-", _VITEPRESS_SPECIAL.sub("-", text)).strip("-")
    return re.sub(r"^(\d)", r"_\1", text).lower()


def sidebar_entries(config: str) -> list[tuple[str, str]]:
    """(link, group) of each sidebar item that links a page, in order, from the configuration's
    `sidebar` literal (`{ text: 'Guide', items: [{ text: 'Intro', link: '/intro' }] }`); the
    group is the outermost item with `items` around it."""
    entries: list[tuple[str, str]] = []
    for item, around in sidebar_items(config):
        if "link" in item:
            groups = [o["text"] for o in around if "items" in o and "text" in o]
            entries.append((item["link"], groups[0] if groups else ""))
    return entries


class VitePress(Layout):
    name = "vitepress"

    def __init__(self, root: Path):
        super().__init__(root)
        site = root if self._config(root) else root / "docs"  # or the project holding docs/
        config = self._config(site)
        text = config.read_text(encoding="utf-8", errors="replace") if config else ""
        # The configuration is a program, not data: its plain settings are read, never run.
        source_dir = re.search(r"""\bsrcDir\s*:\s*['"]([^'"]+)['"]""", text)
        docs = site / source_dir[1] if source_dir else site
        self.docs = docs if docs.is_dir() and docs.resolve().is_relative_to(root.resolve()) else site
        self.clean_urls = re.search(r"\bcleanUrls\s*:\s*true\b", text) is not None
        self.order: list[str] = []  # pages (relative to `docs`) in the sidebar's order
        self.modules: dict[str, str] = {}  # a page's sidebar group
        for link, group in sidebar_entries(text):
            rel = _page_of(link)
            if rel not in self.modules:
                self.order.append(rel)
                self.modules[rel] = group

    @staticmethod
    def _config(site: Path) -> Path | None:
        return next((site / ".vitepress" / name for name in _VITEPRESS_CONFIGS if (site / ".vitepress" / name).is_file()), None)

    @staticmethod
    def found(root: Path) -> bool:
        return VitePress._config(root) is not None or VitePress._config(root / "docs") is not None

    def pages(self, files: list[Path]) -> tuple[list[Path], list[Path]]:
        """The source folder's pages, those the sidebar links first in its order."""
        return listed_first(files, self.docs, self.order)

    def module_of(self, rel: str) -> str | None:
        """The sidebar group that links the page; else, as for other sites, its folder's title."""
        return self.modules.get(rel) or None

    def url_path(self, rel: str, front_matter: dict) -> str:
        path = PurePosixPath(rel)
        stem = path.name.rsplit(".", 1)[0]
        folder = "" if str(path.parent) == "." else f"{path.parent}/"
        if stem == "index":
            return "/" + quote(folder)
        return "/" + quote(f"{folder}{stem}" if self.clean_urls else f"{folder}{stem}.html")

    def page_id(self, rel: str, front_matter: dict) -> str:
        return self.url_path(rel, front_matter).strip("/").removesuffix(".html") or "index"

    def slugger(self) -> HeadingSlugger:
        return HeadingSlugger(_vitepress_slug)

    def readable(self, source: str) -> str:
        """Without `[[toc]]` and Vue's `{{ … }}` interpolations, which VitePress renders (code
        is shown as written)."""
        return _VUE_OUTSIDE_CODE.sub(lambda match: match[1] or "", source)


def _page_of(link: str) -> str:
    """The markdown file a sidebar link opens: `/guide/` → `guide/index.md`, `/intro` → `intro.md`."""
    path = link.split("#", 1)[0].split("?", 1)[0].lstrip("/")
    if not path or path.endswith("/"):
        return f"{path}index.md"
    return re.sub(r"\.(?:md|html)$", "", path) + ".md"
