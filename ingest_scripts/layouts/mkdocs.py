"""MkDocs projects: `mkdocs.yml` (or Zensical's `zensical.toml`), its `nav`, Python-Markdown's
anchors."""

import os
import re
import tomllib
import unicodedata
from pathlib import Path, PurePosixPath

from markdown import Markdown
from pymdownx.snippets import SnippetExtension, SnippetPreprocessor

from ingest_scripts.layouts.base import Layout, LayoutError, listed_first, read_yaml
from ingest_scripts.permalinks import HeadingSlugger


def _mkdocs_slug(text: str) -> str:
    """Python-Markdown's toc slugify: ASCII only, word characters, spaces and hyphens."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


# Python-Markdown extensions' markup that the page does not show as written: a content tab's or
# an admonition's opener (its body is indented under it), attribute lists ({ .md-button },
# { target=_blank }; a heading's { #id .class } keeps its id), Material's icons, [TOC] and the
# abbr extension's definitions (*[HTML]: Hyper Text Markup Language).
_OPENER = re.compile(
    r'^(?P<indent>[ \t]*)(?:===[+!]?[ \t]+"[^"\n]*"|(?:!!!|\?\?\?\+?)[ \t]+[\w-]+[^\n]*)[ \t]*\n?', re.MULTILINE
)
_CODE_OR_ATTRIBUTES = re.compile(
    r"(?P<code>```.*?```|~~~.*?~~~|`[^`\n]*`)|\{:?[ \t]*#(?P<id>[\w-]+)[^}\n]*\}|[ \t]*\{:?[ \t]*(?=\.|[\w-]+=)[^}\n]*\}"
    r"|[ \t]?:(?:material|fontawesome|octicons|simple)-[\w-]+:|^[ \t]*\[TOC\][ \t]*$|^\*\[[^\]\n]+\][ \t]?:[^\n]*\n?",
    re.DOTALL | re.MULTILINE,
)


def _configured(folder: Path) -> bool:
    return (folder / "mkdocs.yml").is_file() or (folder / "zensical.toml").is_file()


def _config(project: Path) -> dict:
    """MkDocs' settings: `mkdocs.yml`, else the `[project]` table of `zensical.toml` (Zensical,
    MkDocs' successor by Material for MkDocs' authors, keeps MkDocs' settings and `nav` there, and
    renders pages with Python-Markdown as MkDocs does)."""
    if (project / "mkdocs.yml").is_file():
        return read_yaml(project / "mkdocs.yml")
    path = project / "zensical.toml"
    if not path.is_file():
        return {}
    try:
        settings = tomllib.loads(path.read_text(encoding="utf-8")).get("project")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise LayoutError(f"{path}: cannot read ({exc})") from exc
    return settings if isinstance(settings, dict) else {}


# What the includes of one page may read in all: far above any real page, it bounds the work of
# includes nested in each other, which may repeat a file many times over.
MAX_INCLUDED_CHARS = 2_000_000


def _extension_settings(config: dict, name: str) -> dict | None:
    """The settings that `markdown_extensions` gives the extension `name`; None when it is not
    enabled. MkDocs lists extensions (a name, or a name with its settings); Zensical's TOML
    nests them by the dotted name's parts."""
    extensions = config.get("markdown_extensions") or []
    if isinstance(extensions, dict):
        settings: object = extensions
        for part in name.split("."):
            settings = settings.get(part) if isinstance(settings, dict) else None
        return None if settings is None else settings if isinstance(settings, dict) else {}
    for entry in extensions if isinstance(extensions, list) else []:
        if entry == name:
            return {}
        if isinstance(entry, dict) and name in entry:
            return entry[name] if isinstance(entry[name], dict) else {}
    return None


class _Includes(SnippetPreprocessor):
    """pymdownx.snippets as the project's build runs it (its `base_path` read from the project's
    folder), but for what would leave the project: no downloads, no file outside the project
    folder, at most MAX_INCLUDED_CHARS read per page."""

    def __init__(self, settings: dict, project: Path):
        defaults = SnippetExtension().getConfigs()
        config = defaults | {key: value for key, value in settings.items() if key in defaults}
        bases = config["base_path"]
        bases = [bases] if isinstance(bases, (str, os.PathLike)) else bases
        config |= {
            "base_path": [str(project / str(base)) for base in bases],
            "url_download": False, "check_paths": False,
        }
        super().__init__(config, Markdown())
        self.project = project.resolve()
        self.left = MAX_INCLUDED_CHARS

    def get_snippet_path(self, path: str) -> str | None:
        found = super().get_snippet_path(path)
        if found is None or not Path(found).resolve().is_relative_to(self.project):
            return None
        self.left -= os.path.getsize(found)
        if self.left < 0:
            raise LayoutError(f"its snippet includes (--8<--) read more than {MAX_INCLUDED_CHARS:,} characters")
        return found

    def expand(self, source: str) -> str:
        self.left = MAX_INCLUDED_CHARS
        return "\n".join(self.run(source.split("\n")))


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


class MkDocs(Layout):
    name = "mkdocs"

    def __init__(self, root: Path):
        super().__init__(root)
        project = root if _configured(root) else root.parent  # or its docs folder
        config = _config(project)
        docs = project / str(config.get("docs_dir") or "docs")
        self.docs = docs if docs.is_dir() and docs.is_relative_to(root) else root
        self.directory_urls = config.get("use_directory_urls", True) is not False
        self.order: list[str] = []
        self.modules: dict[str, str] = {}
        self._read_nav(config.get("nav") or [], "")
        snippets = _extension_settings(config, "pymdownx.snippets")
        self.includes = None if snippets is None else _Includes(snippets, project)

    @staticmethod
    def found(root: Path) -> bool:
        return _configured(root) or _configured(root.parent)

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
        """The docs folder's pages, those `nav` lists first in its order."""
        return listed_first(files, self.docs, self.order)

    def module_of(self, rel: str) -> str | None:
        return self.modules.get(rel)

    def url_path(self, rel: str, front_matter: dict) -> str:
        path = PurePosixPath(rel)
        stem = path.name.rsplit(".", 1)[0]
        folder = "" if str(path.parent) == "." else f"{path.parent}/"
        if stem.lower() in ("index", "readme"):
            return f"/{folder}" if self.directory_urls else f"/{folder}index.html"
        return f"/{folder}{stem}/" if self.directory_urls else f"/{folder}{stem}.html"

    def readable(self, source: str) -> str:
        """Snippet includes replaced by what they include, in code too, as pymdownx.snippets
        does before the page is read; content tabs and admonitions as their bodies (the opener
        left out, the body no longer indented, so that its prose and code read as such);
        attribute lists, icons, [TOC] and abbreviations' definitions left out, outside code."""
        if self.includes is not None:
            source = self.includes.expand(source)
        while opener := _OPENER.search(source):
            indent = len(opener["indent"].expandtabs(4)) + 4
            lines = source[opener.end():].split("\n")
            taken = 0
            while taken < len(lines) and (not lines[taken].strip() or _indent(lines[taken]) >= indent):
                taken += 1
            while taken and not lines[taken - 1].strip():
                taken -= 1  # the blank lines after the body are the page's
            body = [line.expandtabs(4)[4:] if line.strip() else "" for line in lines[:taken]]
            source = source[: opener.start()] + "\n".join(body + lines[taken:])
        return _CODE_OR_ATTRIBUTES.sub(
            lambda match: match["code"] or (f"{{#{match['id']}}}" if match["id"] else ""), source
        )

    def slugger(self) -> HeadingSlugger:
        return HeadingSlugger(_mkdocs_slug, duplicate="{slug}_{n}")
