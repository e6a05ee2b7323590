"""Docsify sites: markdown the browser renders (an `index.html` that loads Docsify), routed at
`#/page` (or `/page` in history mode), a heading at `#/page?id=slug`; `_sidebar.md` gives
the order and groups."""

import re
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from ingest_scripts.layouts.base import Layout, listed_first
from ingest_scripts.permalinks import HeadingSlugger

_DOCSIFY = re.compile(r"\$docsify|docsify(?:@[\w.^~-]+)?/lib/docsify(?:\.min)?\.js", re.IGNORECASE)
_HISTORY_MODE = re.compile(r"""routerMode\s*:\s*['"]history['"]""")
_SIDEBAR_LINK = re.compile(r"^(?P<indent>\s*)[-*+]\s*\[(?P<title>[^\]]*)\]\((?P<target>[^)\s]*)[^)]*\)")
_SIDEBAR_GROUP = re.compile(r"^(?P<indent>\s*)[-*+]\s*(?P<title>[^\[\s].*?)\s*$")
_PUNCTUATION = re.compile(r"[\u2000-\u206F\u2E00-\u2E7F\\'!\"#$%&()*+,./:;<=>?@\[\]^`{|}~]")
_HEADING_ID = re.compile(r"^(?P<heading>#{1,6}[ \t].*?)[ \t]+:id=(?P<id>[\w-]+)[ \t]*$", re.MULTILINE)


def _docsify_slug(text: str) -> str:
    """Docsify's slugify: ASCII capitals lowered, tags and punctuation out, each space a `-`,
    a leading digit after `_`."""
    text = re.sub(r"[A-Z]+", lambda match: match[0].lower(), text.strip())
    text = _PUNCTUATION.sub("", re.sub(r"<[^>]+>", "", text))
    return re.sub(r"^(\d)", r"_\1", re.sub(r"-+", "-", re.sub(r"\s", "-", text)))


class Docsify(Layout):
    name = "docsify"

    def __init__(self, root: Path):
        super().__init__(root)
        page = root / "index.html"
        text = page.read_text(encoding="utf-8", errors="replace") if page.is_file() else ""
        self.history_mode = _HISTORY_MODE.search(text) is not None
        self.order: list[str] = []
        self.modules: dict[str, str] = {}
        sidebar = root / "_sidebar.md"
        if sidebar.is_file():
            self._read_sidebar(sidebar.read_text(encoding="utf-8", errors="replace"))

    @staticmethod
    def found(root: Path) -> bool:
        page = root / "index.html"
        return page.is_file() and _DOCSIFY.search(page.read_text(encoding="utf-8", errors="replace")) is not None

    def _read_sidebar(self, text: str) -> None:
        """Links in the sidebar's order; a link's group is the item without a link above it."""
        group = ""
        for line in text.splitlines():
            if link := _SIDEBAR_LINK.match(line):
                target = link["target"].split("#", 1)[0].split("?", 1)[0].lstrip("/")
                if not target or target.endswith("/"):
                    rel = f"{target}README.md"  # a folder's route is its README
                else:
                    rel = target if target.endswith(".md") else f"{target}.md"
                self.order.append(rel)
                self.modules[rel] = group if link["indent"] else ""
            elif heading := _SIDEBAR_GROUP.match(line):
                group = heading["title"].strip("*_ ")

    def pages(self, files: list[Path]) -> tuple[list[Path], list[Path]]:
        """The sidebar's pages in its order, then the others (Docsify renders any file linked)."""
        return listed_first(files, self.root, self.order)

    def module_of(self, rel: str) -> str | None:
        return self.modules.get(rel) or None

    def url_path(self, rel: str, front_matter: dict) -> str:
        path = PurePosixPath(rel)
        route = "" if path.name.lower() == "readme.md" else path.stem
        folder = "" if str(path.parent) == "." else f"{path.parent}/"
        return ("/" if self.history_mode else "/#/") + quote(folder + route)

    def page_id(self, rel: str, front_matter: dict) -> str:
        return PurePosixPath(rel).with_suffix("").as_posix()

    def slugger(self) -> HeadingSlugger:
        return HeadingSlugger(_docsify_slug, fragment="?id={anchor}")

    def readable(self, source: str) -> str:
        """A heading's `:id=name` is its anchor (written as `{#name}`)."""
        return _HEADING_ID.sub(lambda match: f"{match['heading']} {{#{match['id']}}}", source)
