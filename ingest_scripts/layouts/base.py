"""What every layout is, and the files a site publishes."""

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Literal, get_args
from urllib.parse import quote

import yaml

from ingest_scripts.permalinks import HeadingSlugger, doc_id, permalink

LayoutName = Literal[
    "docusaurus", "mkdocs", "mdbook", "sphinx", "jupyterbook", "hugo", "jekyll", "vitepress", "starlight", "docsify",
    "plain", "html",
]
LAYOUTS: tuple[LayoutName, ...] = get_args(LayoutName)
_SET_ASIDE = re.compile(r"\0(\d+)\0")  # text set aside while the markup around it goes
SUFFIXES = {
    "markdown": (".md", ".mdx"),
    "HTML": (".html", ".htm"),
    "markdown or text": (".md", ".mdx", ".txt"),  # sources uploaded from the console
    "markdown or reStructuredText": (".md", ".mdx", ".rst"),  # a Sphinx project's sources
    "markdown, notebooks or reStructuredText": (".md", ".ipynb", ".rst"),  # a Jupyter Book's
    "markdown (Jekyll's names)": (".md", ".markdown", ".mkdown", ".mkdn", ".mkd"),  # its markdown_ext
}


class LayoutError(ValueError):
    """A generator's configuration that cannot be read; the message names the file."""


class Layout(ABC):
    name: LayoutName
    kind = "markdown"  # the files it publishes (a key of SUFFIXES)
    title_from_any_heading = True

    def __init__(self, root: Path):
        self.root = root  # the folder given to `lectern ingest`
        self.docs = root  # where the pages are (URLs are relative to it)

    def pages(self, files: list[Path]) -> tuple[list[Path], list[Path]]:
        """The files the generator publishes, in reading order, and those it leaves out."""
        return files, []

    def module_of(self, rel: str) -> str | None:
        """The page's module when the generator's configuration says it; None otherwise (the
        folder's title is used)."""
        return None

    @abstractmethod
    def url_path(self, rel: str, front_matter: dict) -> str:
        """The page's path (no origin); `rel` is relative to `docs`."""

    def page_id(self, rel: str, front_matter: dict) -> str:
        return doc_id(rel, str(front_matter["id"]) if front_matter.get("id") else None)

    def slugger(self) -> HeadingSlugger:
        return HeadingSlugger()

    def readable(self, source: str) -> str:
        """The page's markdown without what the generator replaces before rendering it."""
        return source


class Docusaurus(Layout):
    name = "docusaurus"
    title_from_any_heading = False

    def url_path(self, rel: str, front_matter: dict) -> str:
        fm_id = str(front_matter["id"]) if front_matter.get("id") else None
        fm_slug = str(front_matter["slug"]) if front_matter.get("slug") else None
        return permalink(rel, front_matter_id=fm_id, slug=fm_slug)


class Plain(Layout):
    name = "plain"

    def url_path(self, rel: str, front_matter: dict) -> str:
        return "/" + quote(rel)  # "my notes.md" → /my%20notes.md, as a browser asks for it


def without_markup(
    source: str, kept: re.Pattern[str], shown: Callable[[re.Match[str]], str], strip: Callable[[str], str]
) -> str:
    """`strip(source)` with what `kept` matches set aside first (each shown as `shown(match)`):
    what a generator shows as written (Liquid's raw blocks, Hugo's escaped shortcodes) is not
    markup the stripping takes out."""
    aside: list[str] = []

    def set_aside(match: re.Match[str]) -> str:
        aside.append(shown(match))
        return f"\0{len(aside) - 1}\0"

    return _SET_ASIDE.sub(lambda match: aside[int(match[1])], strip(kept.sub(set_aside, source)))


def number(value: object) -> float | None:
    """A front matter value that orders pages (`weight`, `nav_order`, `sidebar.order`), None
    for anything else (a string, a boolean)."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def from_site_root(path: str) -> str:
    """A page path given in front matter (Hugo's `url`, Jekyll's `permalink`), from the site's root."""
    return path if path.startswith("/") else f"/{path}"


def listed_first(files: list[Path], docs: Path, order: list[str]) -> tuple[list[Path], list[Path]]:
    """The files under `docs`, those `order` lists (paths relative to `docs`: a nav, a sidebar)
    first and in its order; and the files outside `docs`."""
    inside = [p for p in files if p.is_relative_to(docs)]
    position = {rel: i for i, rel in enumerate(order)}
    ordered = sorted(inside, key=lambda p: position.get(p.relative_to(docs).as_posix(), len(position)))
    return ordered, [p for p in files if p not in inside]


_SIDEBAR_TOKEN = re.compile(
    r"""(?P<open>[{\[])|(?P<close>[}\]])|\b(?P<key>\w+)\s*:\s*(?:(?P<q>['"`])(?P<value>.*?)(?P=q))?"""
    r"""|(?P<bare>['"`])(?P<string>[^'"`\n]*)(?P=bare)"""
)
_LIST = "["  # marks a list among the objects around an item (no key is named so)


def sidebar_items(config: str) -> Iterator[tuple[dict[str, str], list[dict[str, str]]]]:
    """The items of the `sidebar` literal in a configuration written as code (VitePress's,
    Starlight's), read as text, never run, in order: each object as it closes, as its
    `key: 'value'` pairs (`key: {…}` or `[…]` as ""), and each string alone in a list as
    {"": string}; with the objects around it, outermost first."""
    found = re.search(r"\bsidebar\s*:", config)
    stack: list[dict[str, str]] = []
    for token in _SIDEBAR_TOKEN.finditer(_bracketed(config, found.end()) if found else ""):
        if token["open"]:
            stack.append({_LIST: ""} if token["open"] == "[" else {})
        elif token["close"] and stack:
            item = stack.pop()
            if _LIST not in item:
                yield item, [o for o in stack if _LIST not in o]
        elif token["key"] and stack:
            stack[-1][token["key"]] = token["value"] if token["value"] is not None else ""
        elif token["string"] is not None and stack and _LIST in stack[-1]:
            yield {"": token["string"]}, [o for o in stack if _LIST not in o]


def _bracketed(text: str, start: int) -> str:
    """The bracketed value that opens at or after `start` (a sidebar's array or object)."""
    opened = re.compile(r"[\[{]").search(text, start)
    if opened is None:
        return ""
    depth = 0
    for at in range(opened.start(), len(text)):
        depth += {"[": 1, "{": 1, "]": -1, "}": -1}.get(text[at], 0)
        if depth == 0:
            return text[opened.start() : at + 1]
    return text[opened.start() :]


def published_files(root: Path, suffixes: tuple[str, ...]) -> Iterator[Path]:
    """The files with these suffixes a site publishes: `_`-prefixed and hidden paths (Docusaurus
    partials, Sphinx's `_static` and `_sources`) and node_modules are left out."""
    for path in root.rglob("*"):
        if (
            path.suffix in suffixes
            and path.is_file()
            and not any(
                part.startswith(("_", ".")) or part == "node_modules"
                for part in path.relative_to(root).parts
            )
        ):
            yield path


def read_yaml(path: Path) -> dict:
    """A generator's YAML configuration; tags such as `!!python/name:…` are read as nothing."""

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=Loader)  # a SafeLoader
    except (OSError, yaml.YAMLError) as exc:
        raise LayoutError(f"{path}: cannot read ({exc})") from exc
    return data if isinstance(data, dict) else {}
