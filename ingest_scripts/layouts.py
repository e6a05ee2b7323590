"""How each generator publishes a folder of markdown: which files become pages, in what order,
under which module, at which URL, with which heading anchors.

- docusaurus: `docusaurus.config.*`, or no other generator's file (the default): permalinks.py;
- mkdocs: `mkdocs.yml` (pages under its `docs_dir`): `a/b.md` → `a/b/` (`a/b.html` with
  `use_directory_urls: false`), anchors as Python-Markdown's toc makes them, modules and order
  from `nav`;
- mdbook: `book.toml` or `SUMMARY.md` (pages under `src`): only the chapters SUMMARY.md lists,
  in its order, `ch01.md` → `ch01.html` (`README.md` → `index.html`), anchors as mdBook makes
  them, a chapter's module is its part or top-level chapter;
- sphinx: `conf.py` (reStructuredText or MyST markdown): the pages the root document's toctrees reach,
  in their order, then the others the build still makes (`exclude_patterns` left out); a
  page's module is its toctree's caption, or the root document's heading above that toctree;
  `a/b.md` → `a/b.html`, anchors as docutils makes section ids;
- hugo: `hugo.toml` (or `config.toml`/`.yaml`/`.json` beside a `content/` folder; pages under
  its `contentDir`): `a/b.md` → `a/b/` (`a/b.html` with `uglyURLs`), a section's `_index.md`
  and a bundle's `index.md` → their folder, paths lower-cased with spaces as `-`, front matter
  `url` replaces the path and `slug` the last part; sections in path order, pages by `weight`;
  shortcodes are markup (`{{< note >}}…{{< /note >}}` keeps what it wraps, `highlight` is a
  code block), anchors as GitHub's;
- jekyll: `_config.yml` (not a Jupyter Book's, which has a `_toc.yml`): the markdown files with
  front matter (all of them, and a folder's README as its index, on GitHub Pages: no Gemfile or
  the `github-pages` gem; or with `jekyll-optional-front-matter`), posts
  in `_posts` and collections with `output: true`; `a/b.md` → `a/b.html` (`a/b/` with
  `permalink: pretty`), `a/index.md` → `a/`, posts at `/:categories/:year/:month/:day/:title`,
  a collection's pages at `/:collection/:path`, front matter `permalink` honoured; Liquid tags
  and output left out (`raw` kept as written, `highlight` a code block), `exclude` honoured;
  just-the-docs' `parent` is the module and `nav_order` the order; anchors as GitHub's;
- vitepress: a `.vitepress/config.*` folder (in the folder given or its `docs/`; pages under its
  `srcDir`): `a/b.md` → `a/b.html` (`a/b` with `cleanUrls`), `a/index.md` → `a/`, anchors as
  VitePress's slugify makes them (`_1-step`, `cafe-deja-vu`); `[[toc]]` and Vue's `{{ … }}`
  outside code left out;
- starlight: Astro's Starlight (`astro.config.*` naming `starlight`, pages under
  `src/content/docs`): `a/B c.md` → `a/b-c/`, `a/index.md` → `a/`, front matter `slug`
  replaces the path, `sidebar.order` orders, anchors as GitHub's;
- plain: markdown as a repository browser shows it: `a/b.md#anchor`, GitHub's anchors;
- html: a generator's output folder (Docusaurus `build/`, MkDocs `site/`, Sphinx `_build/html`,
  mdBook `book/`, Hugo `public/`, VitePress `dist/`): `.html` pages and no markdown. Pages are
  read by html_site.py; a page is served at `a/b/index.html` → `a/b/`, `a/b.html` as it is.

Docusaurus reads the title from front matter or the page's `#` heading; the others take the
page's first heading of any level (mdBook books often open chapters with `##`).
"""

import ast
import json
import math
import posixpath
import re
import textwrap
import tomllib
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath
from typing import Literal, get_args
from urllib.parse import quote

import yaml
from docutils.nodes import make_id

from ingest_scripts.markdown import split_front_matter
from ingest_scripts.permalinks import HeadingSlugger, doc_id, permalink, slugify

LayoutName = Literal["docusaurus", "mkdocs", "mdbook", "sphinx", "hugo", "jekyll", "vitepress", "starlight", "plain", "html"]
LAYOUTS: tuple[LayoutName, ...] = get_args(LayoutName)
SUFFIXES = {
    "markdown": (".md", ".mdx"),
    "HTML": (".html", ".htm"),
    "markdown or text": (".md", ".mdx", ".txt"),  # sources uploaded from the console
    "markdown or reStructuredText": (".md", ".mdx", ".rst"),  # a Sphinx project's sources
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


def _mkdocs_slug(text: str) -> str:
    """Python-Markdown's toc slugify: ASCII only, word characters, spaces and hyphens."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _mdbook_slug(text: str) -> str:
    """mdBook's normalize_id: alphanumerics, `_` and `-` (ASCII lower-cased), each space a `-`."""
    kept = (
        ch.lower() if ch.isascii() else ch
        for ch in text
        if ch.isalnum() or ch in "_-" or ch.isspace()
    )
    return "".join("-" if ch.isspace() else ch for ch in kept)


class MkDocs(Layout):
    name = "mkdocs"

    def __init__(self, root: Path):
        super().__init__(root)
        project = root if (root / "mkdocs.yml").is_file() else root.parent  # or its docs folder
        config = _yaml(project / "mkdocs.yml") if (project / "mkdocs.yml").is_file() else {}
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


class _DocutilsIds(HeadingSlugger):
    """A page's section ids as Sphinx gives them (docutils' make_id); a title used before gets
    docutils' page-wide `id1`, `id2`, … instead."""

    def __init__(self) -> None:
        super().__init__(make_id)
        self._numbered = 0

    def anchor(self, heading_text: str) -> str:
        slug = self._slug(heading_text.strip())
        if not slug or slug in self._seen:
            self._numbered += 1
            slug = f"id{self._numbered}"
        self._seen[slug] = 0
        return slug


_TOCTREE = re.compile(
    r"^[ \t]*(?P<fence>`{3,}|:{3,})\{toctree\}[^\n]*\n(?P<body>.*?)^[ \t]*(?P=fence)[`:]*[ \t]*$",
    re.DOTALL | re.MULTILINE,
)
_CODE_FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})(?!\{)[^\n]*\n.*?^[ \t]*(?P=fence)[`~]*[ \t]*$", re.DOTALL | re.MULTILINE)
_HEADING = re.compile(r"^#{1,6}[ \t]+(?P<title>.+?)[ \t]*#*[ \t]*$", re.MULTILINE)
_ENTRY_TARGET = re.compile(r"<([^<>]+)>\s*$")  # "Title <page>"
# reST: a toctree directive and its indented options and entries; a section title (its text
# over a line of one punctuation character).
_REST_TOCTREE = re.compile(
    r"^(?P<indent>[ \t]*)\.\.[ \t]+toctree::[ \t]*\n(?P<body>(?:(?:(?P=indent)[ \t]+\S[^\n]*)?\n)*)",
    re.MULTILINE,
)
REST_TITLE = re.compile(r"^(?P<title>\S[^\n]*)\n(?P<rule>[=\-~^\"'`#*+<>:._])(?P=rule){2,}[ \t]*$", re.MULTILINE)


class Sphinx(Layout):
    name = "sphinx"
    kind = "markdown or reStructuredText"

    def __init__(self, root: Path):
        super().__init__(root)
        self.docs = root if (root / "conf.py").is_file() else root / "docs"
        config = _literal_assignments(self.docs / "conf.py")
        patterns = config.get("exclude_patterns", [])
        self.excluded = [
            _sphinx_pattern(p) for p in patterns if isinstance(p, str)
        ] if isinstance(patterns, list | tuple) else []
        self.root_doc = str(config.get("root_doc") or config.get("master_doc") or "index")
        self._files = {
            path.relative_to(self.docs).as_posix(): path
            for path in published_files(self.docs, SUFFIXES[self.kind])
            if not self._is_excluded(path.relative_to(self.docs).as_posix())
        }
        self._docnames = {_docname(rel): rel for rel in self._files}
        self.order: list[str] = []  # docnames ("a/b"), in the order the toctrees give
        self.modules: dict[str, str] = {}
        self._walk(self.root_doc, module=None)

    @staticmethod
    def found(root: Path) -> bool:
        return (root / "conf.py").is_file() or (root / "docs" / "conf.py").is_file()

    def _is_excluded(self, rel: str) -> bool:
        """Sphinx matches `exclude_patterns` against a file's path and each of its folders'."""
        parts = rel.split("/")
        paths = ["/".join(parts[: n + 1]) for n in range(len(parts))]
        return any(pattern.fullmatch(path) for pattern in self.excluded for path in paths)

    def pages(self, files: list[Path]) -> tuple[list[Path], list[Path]]:
        """Every markdown page the build makes: those the toctrees reach first, in order."""
        published = set(self._files.values())
        first = [self._files[self._docnames[doc]] for doc in self.order]
        rest = [p for p in files if p in published and p not in first]
        return [p for p in first if p in files] + rest, [p for p in files if p not in published]

    def _walk(self, doc: str, module: str | None) -> None:
        if doc in self.order or doc not in self._docnames:
            return
        self.order.append(doc)
        if module:
            self.modules[doc] = module
        path = self._files[self._docnames[doc]]
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".rst":
            headings, toctrees = list(REST_TITLE.finditer(text)), list(_REST_TOCTREE.finditer(text))
        else:
            # Code examples blanked (their "# comment" lines are no headings), lines kept.
            prose = _CODE_FENCE.sub(lambda code: "\n" * code[0].count("\n"), text)
            headings, toctrees = list(_HEADING.finditer(prose)), list(_TOCTREE.finditer(prose))
        for toctree in toctrees:
            caption, glob, entries = _toctree(textwrap.dedent(toctree["body"]))
            if doc == self.root_doc:  # the root's toctrees are the book's parts
                above = [h["title"].strip() for h in headings[1:] if h.start() < toctree.start()]
                module = caption or (above[-1] if above else None)
            for entry in entries:
                for child in self._resolve(entry, PurePosixPath(doc).parent, glob):
                    self._walk(child, module)

    def _resolve(self, entry: str, folder: PurePosixPath, glob: bool) -> list[str]:
        """The docnames a toctree entry names: relative to its page or `/` from the docs root,
        glob patterns (with `:glob:`) matched in name order as Sphinx matches them."""
        target = _docname(doc_target(entry, folder.as_posix()))
        if glob and any(ch in target for ch in "*?["):
            pattern = _sphinx_pattern(target)
            return sorted(doc for doc in self._docnames if pattern.fullmatch(doc))
        return [target]

    def module_of(self, rel: str) -> str | None:
        return self.modules.get(_docname(rel))

    def url_path(self, rel: str, front_matter: dict) -> str:
        return "/" + quote(_docname(rel)) + ".html"

    def slugger(self) -> HeadingSlugger:
        return _DocutilsIds()


def doc_target(reference: str, folder: str) -> str:
    """The document a toctree entry or a `:doc:` role names from a page in `folder`: relative
    to it, or from the docs root when it starts with `/`."""
    return reference[1:] if reference.startswith("/") else posixpath.normpath(posixpath.join(folder, reference))


def _docname(rel: str) -> str:
    suffix = PurePosixPath(rel).suffix
    return rel.removesuffix(suffix) if suffix in SUFFIXES["markdown or reStructuredText"] else rel


def _sphinx_pattern(pattern: str) -> re.Pattern[str]:
    """A Sphinx path pattern: `**` any path, `*` and `?` within one folder, `[…]` a class."""
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        elif pattern[i] == "[" and (close := pattern.find("]", i + 1)) > i:
            chars = pattern[i + 1 : close]
            out += "[^" + re.escape(chars[1:]) + "]" if chars.startswith("!") else "[" + re.escape(chars) + "]"
            i = close + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out)


def _toctree(body: str) -> tuple[str | None, bool, list[str]]:
    """A toctree directive's caption, whether it globs, and its entries; options are
    `:name: value` lines or a `---` YAML block."""
    lines = body.splitlines()
    options: dict[str, str] = {}
    if lines and lines[0].strip() == "---" and "---" in (line.strip() for line in lines[1:]):
        end = next(n for n, line in enumerate(lines[1:], start=1) if line.strip() == "---")
        for line in lines[1:end]:
            name, _, value = line.partition(":")
            options[name.strip()] = value.strip()
        lines = lines[end + 1 :]
    entries: list[str] = []
    for line in (line.strip() for line in lines):
        if option := re.fullmatch(r":([\w-]+):\s*(.*)", line):
            options[option[1]] = option[2]
        elif line and line != "self" and "://" not in line:
            target = _ENTRY_TARGET.search(line)
            entries.append(target.group(1).strip() if target else line)
    return options.get("caption") or None, "glob" in options, entries


def _literal_assignments(conf: Path) -> dict[str, object]:
    """The settings conf.py assigns plain values to (`master_doc = "index"`), read without
    running it: a configuration is code, and ingest does not run a book's code."""
    try:
        tree = ast.parse(conf.read_text(encoding="utf-8"), filename=str(conf))
    except (OSError, SyntaxError, ValueError) as exc:
        raise LayoutError(f"{conf}: cannot be read ({exc})") from exc
    values: dict[str, object] = {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if not targets or node.value is None:
            continue
        try:
            value = ast.literal_eval(node.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        values.update((target.id, value) for target in targets if isinstance(target, ast.Name))
    return values


_HUGO_CONFIGS = ("hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json")
_SITE_CONFIGS = ("config.toml", "config.yaml", "config.yml", "config.json")  # Hugo's older names
_ESCAPED_SHORTCODE = re.compile(r"\{\{([<%])/\*(.*?)\*/([>%])\}\}", re.DOTALL)  # {{</* x */>}} shows {{< x >}}
_HIGHLIGHT = re.compile(r"\{\{<\s*highlight\s+(\w*)[^>]*>\}\}\n?(.*?)\n?\{\{<\s*/highlight\s*>\}\}", re.DOTALL)
_SHORTCODE = re.compile(r"\{\{<.*?>\}\}|\{\{%.*?%\}\}", re.DOTALL)
_KEPT = re.compile(r"\0(\d+)\0")


class Hugo(Layout):
    name = "hugo"

    def __init__(self, root: Path):
        super().__init__(root)
        project = root if self._config(root) else root.parent  # or its content folder
        config = self._read(self._config(project))
        content = project / str(config.get("contentDir") or "content")
        self.docs = content if content.is_dir() and content.is_relative_to(root) else root
        self.ugly_urls = config.get("uglyURLs") is True
        self.lower_case = config.get("disablePathToLower") is not True
        self.section_titles: dict[str, str] = {}  # a section folder's title, read by pages()

    @staticmethod
    def _config(folder: Path) -> Path | None:
        """Hugo's configuration file: `hugo.*`, or `config.*` beside a `content/` folder (a
        name other tools use too)."""
        named = (folder / name for name in _HUGO_CONFIGS)
        older = (folder / name for name in _SITE_CONFIGS) if (folder / "content").is_dir() else iter(())
        return next((path for path in (*named, *older) if path.is_file()), None)

    @staticmethod
    def _read(config: Path | None) -> dict:
        if config is None:
            return {}
        try:
            if config.suffix == ".toml":
                return tomllib.loads(config.read_text(encoding="utf-8"))
            if config.suffix == ".json":
                return json.loads(config.read_text(encoding="utf-8"))
            return _yaml(config)
        except (tomllib.TOMLDecodeError, json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise LayoutError(f"{config}: not a readable Hugo configuration: {exc}") from exc

    @staticmethod
    def found(root: Path) -> bool:
        return Hugo._config(root) is not None or (
            Hugo._config(root.parent) is not None and (root.parent / "content").resolve() == root.resolve()
        )

    def pages(self, files: list[Path]) -> tuple[list[Path], list[Path]]:
        """The content folder's pages and its sections' `_index` pages (which names starting
        with `_` otherwise leave out); each section's own page first, then its pages (a
        bundle's `index` page is one of them) by `weight`, unweighted last, as Hugo lists them."""
        sections = [
            path for path in self.docs.rglob("_index.*")
            if path.suffix in SUFFIXES["markdown"] and path.is_file()
            and not any(part.startswith((".", "_")) for part in path.relative_to(self.docs).parent.parts)
        ]
        inside = [p for p in files if p.is_relative_to(self.docs)] + sections
        front = {p: split_front_matter(p.read_text(encoding="utf-8"), p.relative_to(self.root).as_posix())[0] for p in inside}
        self.section_titles = {
            path.relative_to(self.docs).parent.as_posix(): str(front[path].get("title") or "") for path in sections
        }

        def place(path: Path) -> tuple:
            rel = path.relative_to(self.docs)
            if path.stem == "_index":
                return (rel.parent.parts, 0, 0, "")
            weight = front[path].get("weight")
            weighted = isinstance(weight, int | float) and not isinstance(weight, bool) and weight != 0
            return (_section_of(rel).parts, 1, weight if weighted else math.inf, rel.as_posix())

        return sorted(inside, key=place), [p for p in files if p not in inside]

    def module_of(self, rel: str) -> str | None:
        """The title of the section the page is in (the nearest folder with an `_index`); pages
        at the top of the content folder have none."""
        section = _section_of(PurePosixPath(rel))
        while section.parts:
            if section.as_posix() in self.section_titles:
                return self.section_titles[section.as_posix()]
            section = section.parent
        return ""

    def url_path(self, rel: str, front_matter: dict) -> str:
        if front_matter.get("url"):
            url = str(front_matter["url"])
            return url if url.startswith("/") else f"/{url}"
        path = PurePosixPath(rel)
        stem = path.name.rsplit(".", 1)[0]
        parts = [part for part in path.parent.parts if part != "."]
        if stem == "index" and front_matter.get("slug") and parts:  # a bundle: its folder is the page
            parts[-1] = str(front_matter["slug"])
        elif stem not in ("_index", "index"):
            parts.append(str(front_matter.get("slug") or stem))
        parts = [part.replace(" ", "-").lower() if self.lower_case else part.replace(" ", "-") for part in parts]
        if not parts:
            return "/"
        if self.ugly_urls:
            return "/" + quote("/".join(parts)) + ".html"
        return "/" + quote("/".join(parts)) + "/"

    def page_id(self, rel: str, front_matter: dict) -> str:
        return self.url_path(rel, front_matter).strip("/").removesuffix(".html") or "index"

    def readable(self, source: str) -> str:
        """Shortcodes out: Hugo replaces them with what their templates make, which the
        markdown does not hold; a paired one's inner text stays, `highlight` becomes a fenced
        block, and an escaped one (`{{</* note */>}}`) shows as written."""
        escaped: list[str] = []

        def kept(match: re.Match[str]) -> str:
            escaped.append("{{" + match[1] + match[2] + match[3] + "}}")
            return f"\0{len(escaped) - 1}\0"

        source = _ESCAPED_SHORTCODE.sub(kept, source)
        source = _HIGHLIGHT.sub(lambda match: f"```{match[1]}\n{match[2]}\n```", source)
        source = _SHORTCODE.sub("", source)
        return _KEPT.sub(lambda match: escaped[int(match[1])], source)


def _section_of(rel: PurePosixPath) -> PurePosixPath:
    """The folder whose section a Hugo page is in: a bundle's `index` page is its folder, a
    page of the folder that holds it."""
    return rel.parent.parent if rel.stem == "index" else rel.parent


_LIQUID_RAW = re.compile(r"\{%-?\s*raw\s*-?%\}(.*?)\{%-?\s*endraw\s*-?%\}", re.DOTALL)
_LIQUID_COMMENT = re.compile(r"\{%-?\s*comment\s*-?%\}.*?\{%-?\s*endcomment\s*-?%\}", re.DOTALL)
_LIQUID_HIGHLIGHT = re.compile(
    r"\{%-?\s*highlight\s+(\w*)[^%]*%\}\n?(.*?)\n?\{%-?\s*endhighlight\s*-?%\}", re.DOTALL
)
_LIQUID = re.compile(r"\{%.*?%\}|\{\{.*?\}\}", re.DOTALL)
_POST_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})-(.+)$")


class Jekyll(Layout):
    name = "jekyll"

    def __init__(self, root: Path):
        super().__init__(root)
        self.config = self._read(root)
        permalink = str(self.config.get("permalink") or "date")
        self.pretty = permalink == "pretty" or permalink.endswith("/")
        self.post_style = {
            "date": "/:categories/:year/:month/:day/:title:output_ext",
            "pretty": "/:categories/:year/:month/:day/:title/",
            "ordinal": "/:categories/:year/:y_day/:title:output_ext",
            "none": "/:categories/:title:output_ext",
        }.get(permalink, permalink)
        collections = self.config.get("collections") or {}
        if isinstance(collections, list):
            collections = {name: {} for name in collections}
        self.collections = {
            str(name): options or {} for name, options in collections.items()
            if isinstance(options, dict) and options.get("output") is True
        }
        plugins = [str(p) for p in self.config.get("plugins") or self.config.get("gems") or []]
        gemfile = root / "Gemfile"
        # GitHub Pages builds a site that has no Gemfile (or names its gem) with plugins that
        # make every markdown file a page and a folder's README its index.
        self.github_pages = not gemfile.is_file() or "github-pages" in gemfile.read_text(encoding="utf-8", errors="replace")
        self.optional_front_matter = self.github_pages or "jekyll-optional-front-matter" in plugins
        self.front_matter: dict[str, dict] = {}  # of each page, read by pages()

    @staticmethod
    def _read(root: Path) -> dict:
        path = root / "_config.yml"
        if not path.is_file():
            path = root / "_config.yaml"
        if path.is_file():
            return _yaml(path)
        toml = root / "_config.toml"
        try:
            return tomllib.loads(toml.read_text(encoding="utf-8")) if toml.is_file() else {}
        except tomllib.TOMLDecodeError as exc:
            raise LayoutError(f"{toml}: not a readable Jekyll configuration: {exc}") from exc

    @staticmethod
    def found(root: Path) -> bool:
        configs = ("_config.yml", "_config.yaml", "_config.toml")
        return any((root / name).is_file() for name in configs) and not (root / "_toc.yml").is_file()

    def _excluded(self, rel: PurePosixPath) -> bool:
        patterns = [str(p).strip("/") for p in self.config.get("exclude") or []]
        patterns += ["Gemfile", "Gemfile.lock", "node_modules", "vendor"]
        return any(
            fnmatch(rel.as_posix(), pattern) or fnmatch(part, pattern) or rel.as_posix().startswith(pattern + "/")
            for pattern in patterns
            for part in rel.parts
        )

    def pages(self, files: list[Path]) -> tuple[list[Path], list[Path]]:
        """The site's pages, its posts and its collections' pages (in folders whose `_` names
        leave them out elsewhere): by just-the-docs' `nav_order`, then by path, posts and
        collections last."""
        special = [
            path for folder in ["_posts", *(f"_{name}" for name in self.collections)]
            for path in published_files(self.root / folder, SUFFIXES["markdown"])
        ] + [
            path for path in self.root.rglob("_posts/*")
            if path.suffix in SUFFIXES["markdown"] and path.parent != self.root / "_posts"
            and not any(part.startswith((".", "_")) for part in path.parent.relative_to(self.root).parent.parts)
        ]
        candidates = [p for p in files if not self._excluded(PurePosixPath(p.relative_to(self.root).as_posix()))]
        published, left_out = [], [p for p in files if p not in candidates]
        for path in candidates + special:
            rel = path.relative_to(self.root).as_posix()
            source = path.read_text(encoding="utf-8", errors="replace")
            front_matter, _ = split_front_matter(source, rel)
            if source.startswith(("---", "+++")) or self.optional_front_matter or path in special:
                self.front_matter[rel] = front_matter
                published.append(path)
            else:
                left_out.append(path)  # Jekyll copies a file without front matter as it is

        def place(path: Path) -> tuple:
            rel = path.relative_to(self.root).as_posix()
            order = self.front_matter[rel].get("nav_order")
            if isinstance(order, int | float) and not isinstance(order, bool):
                return (0, order, rel)
            return (2 if path in special else 1, 0, rel)  # posts and collections after the pages

        return sorted(published, key=place), left_out

    def module_of(self, rel: str) -> str | None:
        parent = self.front_matter.get(rel, {}).get("parent")
        return str(parent) if parent else None

    def url_path(self, rel: str, front_matter: dict) -> str:
        if front_matter.get("permalink"):
            url = str(front_matter["permalink"])
            return url if url.startswith("/") else f"/{url}"
        path = PurePosixPath(rel)
        stem = path.name.rsplit(".", 1)[0]
        if "_posts" in path.parts:
            return self._post_url(path, stem, front_matter)
        if path.parts[0].startswith("_") and path.parts[0][1:] in self.collections:
            name = path.parts[0][1:]
            template = str(self.collections[name].get("permalink") or (
                "/:collection/:path/" if self.pretty else "/:collection/:path:output_ext"
            ))
            inner = PurePosixPath(*path.parts[1:]).with_suffix("").as_posix()
            return self._expand(template, {"collection": name, "path": inner, "name": stem, "title": stem})
        folder = "" if str(path.parent) == "." else f"{path.parent}/"
        if stem == "index" or (stem.lower() == "readme" and self.github_pages and not self._has_index(path.parent)):
            return "/" + quote(folder)
        return "/" + quote(f"{folder}{stem}/" if self.pretty else f"{folder}{stem}.html")

    def _has_index(self, folder: PurePosixPath) -> bool:
        return any((self.root / folder / f"index{suffix}").is_file() for suffix in (*SUFFIXES["markdown"], ".html"))

    def _post_url(self, path: PurePosixPath, stem: str, front_matter: dict) -> str:
        named = _POST_NAME.match(stem)
        year, month, day, title = named.groups() if named else ("", "", "", stem)
        date = str(front_matter.get("date") or "")
        if re.match(r"\d{4}-\d{2}-\d{2}", date):
            year, month, day = date[:4], date[5:7], date[8:10]
        categories = [part for part in path.parts[: path.parts.index("_posts")]]
        for key in ("categories", "category"):
            given = front_matter.get(key)
            categories += given.split() if isinstance(given, str) else [str(c) for c in given or []]
        values = {
            "categories": "/".join(c.replace(" ", "-").lower() for c in categories),
            "year": year, "month": month, "day": day, "title": str(front_matter.get("slug") or title),
            "i_month": month.lstrip("0"), "i_day": day.lstrip("0"),
        }
        return self._expand(self.post_style, values)

    @staticmethod
    def _expand(template: str, values: dict[str, str]) -> str:
        values = {**values, "output_ext": ".html"}
        url = re.sub(r":(\w+)", lambda match: values.get(match[1], match[0]), template)
        return "/" + quote(re.sub(r"/{2,}", "/", url).lstrip("/"))

    def readable(self, source: str) -> str:
        """Liquid out: Jekyll renders it before the markdown. `raw` blocks show as written,
        `highlight` blocks are code, comments go with what they hold, other tags and output
        (`{% include … %}`, `{{ site.title }}`) leave nothing."""
        kept: list[str] = []

        def keep(match: re.Match[str]) -> str:
            kept.append(match[1])
            return f"\0{len(kept) - 1}\0"

        source = _LIQUID_RAW.sub(keep, source)
        source = _LIQUID_COMMENT.sub("", source)
        source = _LIQUID_HIGHLIGHT.sub(lambda match: f"```{match[1]}\n{match[2]}\n```", source)
        source = _LIQUID.sub("", source)
        return _KEPT.sub(lambda match: kept[int(match[1])], source)


_VITEPRESS_CONFIGS = ("config.mts", "config.ts", "config.mjs", "config.js", "config.cts", "config.cjs")
_VITEPRESS_SPECIAL = re.compile(r"[\s~`!@#$%^&*()\-_+=\[\]{}|\\;:\"'“”‘’<>,.?/]+")
_VUE_OUTSIDE_CODE = re.compile(r"(```.*?```|~~~.*?~~~|`[^`\n]*`)|\{\{.*?\}\}|^[ \t]*\[\[toc\]\][ \t]*$", re.DOTALL | re.MULTILINE)


def _vitepress_slug(text: str) -> str:
    """VitePress's slugify (@mdit-vue/shared): accents off, runs of spaces and punctuation a
    single `-`, a leading digit after `_`, lower case."""
    text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not "\u0300" <= ch <= "\u036f")
    text = re.sub(r"[\u0000-\u001f]", "", text)
    text = re.sub(r"-{2,}", "-", _VITEPRESS_SPECIAL.sub("-", text)).strip("-")
    return re.sub(r"^(\d)", r"_\1", text).lower()


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

    @staticmethod
    def _config(site: Path) -> Path | None:
        return next((site / ".vitepress" / name for name in _VITEPRESS_CONFIGS if (site / ".vitepress" / name).is_file()), None)

    @staticmethod
    def found(root: Path) -> bool:
        return VitePress._config(root) is not None or VitePress._config(root / "docs") is not None

    def pages(self, files: list[Path]) -> tuple[list[Path], list[Path]]:
        inside = [p for p in files if p.is_relative_to(self.docs)]
        return inside, [p for p in files if p not in inside]

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


_ASTRO_CONFIGS = ("astro.config.mjs", "astro.config.ts", "astro.config.mts", "astro.config.js", "astro.config.cjs")
_STARLIGHT_CONTENT = Path("src/content/docs")


class Starlight(Layout):
    name = "starlight"

    def __init__(self, root: Path):
        super().__init__(root)
        content = root / _STARLIGHT_CONTENT
        self.docs = content if content.is_dir() else root  # the content folder given directly
        self.order: dict[str, float] = {}  # a page's `sidebar.order`, read by pages()
        self.folder_titles: dict[str, str] = {}  # a folder's index page title, read by pages()

    @staticmethod
    def _project(root: Path) -> Path | None:
        """The Astro project: the folder given, or the one whose src/content/docs it is."""
        for project in (root, *root.parents[2:3]):
            configs = [project / name for name in _ASTRO_CONFIGS if (project / name).is_file()]
            if (
                configs and (project / _STARLIGHT_CONTENT).is_dir()
                and (project == root or project / _STARLIGHT_CONTENT == root)
                and "starlight" in configs[0].read_text(encoding="utf-8", errors="replace")
            ):
                return project
        return None

    @staticmethod
    def found(root: Path) -> bool:
        return Starlight._project(root) is not None

    def pages(self, files: list[Path]) -> tuple[list[Path], list[Path]]:
        """The content folder's pages, by `sidebar.order` (unordered after), then by path."""
        inside = [p for p in files if p.is_relative_to(self.docs)]
        for path in inside:
            rel = path.relative_to(self.docs)
            front_matter, _ = split_front_matter(path.read_text(encoding="utf-8"), path.relative_to(self.root).as_posix())
            sidebar = front_matter.get("sidebar")
            order = sidebar.get("order") if isinstance(sidebar, dict) else None
            if isinstance(order, int | float) and not isinstance(order, bool):
                self.order[rel.as_posix()] = order
            if rel.stem == "index" and front_matter.get("title"):
                self.folder_titles[rel.parent.as_posix()] = str(front_matter["title"])

        def place(path: Path) -> tuple:
            rel = path.relative_to(self.docs)
            return (rel.parent.parts, self.order.get(rel.as_posix(), math.inf), rel.as_posix())

        return sorted(inside, key=place), [p for p in files if p not in inside]

    def module_of(self, rel: str) -> str | None:
        """A folder's index page title, else the folder's name, as Starlight's autogenerated
        sidebar labels its group; pages at the top of the content have none."""
        folder = PurePosixPath(rel).parent
        return "" if not folder.parts else self.folder_titles.get(folder.as_posix(), folder.name)

    def url_path(self, rel: str, front_matter: dict) -> str:
        """Astro's content ids: each part of the path as github-slugger makes it."""
        if front_matter.get("slug") is not None:
            slug = str(front_matter["slug"]).strip("/")
            return f"/{quote(slug)}/" if slug else "/"
        path = PurePosixPath(rel)
        parts = [slugify(part) for part in (*path.parent.parts, path.name.rsplit(".", 1)[0]) if part != "."]
        if parts and parts[-1] == "index":
            parts.pop()
        return "/" + "".join(f"{quote(part)}/" for part in parts)

    def page_id(self, rel: str, front_matter: dict) -> str:
        return self.url_path(rel, front_matter).strip("/") or "index"


class BuiltSite(Layout):
    name = "html"

    @staticmethod
    def found(root: Path) -> bool:
        """HTML pages, and no sources but copies of them: no markdown (nor a Sphinx project's
        reStructuredText) other than a page's own source beside it (Node.js's API docs ship
        `policy.md` next to `policy.html`, and readers read the HTML)."""
        kind = "markdown or reStructuredText" if Sphinx.found(root) else "markdown"
        pages = {path.with_suffix("") for path in published_files(root, SUFFIXES["HTML"])}
        return bool(pages) and all(path.with_suffix("") in pages for path in published_files(root, SUFFIXES[kind]))

    def url_path(self, rel: str, front_matter: dict) -> str:
        """Where a static server serves the file: `a/index.html` at `a/`."""
        served = f"/{rel}"
        return served.removesuffix("index.html") if served.endswith("/index.html") else served

    def page_id(self, rel: str, front_matter: dict) -> str:
        return self.url_path(rel, front_matter).strip("/").removesuffix(".html") or "index"


_DETECTED: tuple[type[BuiltSite] | type[MdBook] | type[MkDocs] | type[Sphinx] | type[Hugo] | type[Jekyll] | type[VitePress] | type[Starlight], ...] = (
    BuiltSite, MdBook, MkDocs, Sphinx, Hugo, Jekyll, VitePress, Starlight,
)
_BY_NAME: dict[str, type[Layout]] = {
    cls.name: cls for cls in (Docusaurus, MkDocs, MdBook, Sphinx, Hugo, Jekyll, VitePress, Starlight, Plain, BuiltSite)
}


def detect_layout(root: Path, name: LayoutName | None = None) -> Layout:
    """The named layout, else a built site (HTML and no markdown), else the generator whose
    configuration is in `root` (or, for a docs folder given directly, beside it), else
    Docusaurus."""
    if name:
        return _BY_NAME[name](root)
    return next((cls(root) for cls in _DETECTED if cls.found(root)), Docusaurus(root))


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


def _yaml(path: Path) -> dict:
    """A generator's YAML configuration; tags such as `!!python/name:…` are read as nothing."""

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=Loader)  # a SafeLoader
    except (OSError, yaml.YAMLError) as exc:
        raise LayoutError(f"{path}: cannot read ({exc})") from exc
    return data if isinstance(data, dict) else {}

