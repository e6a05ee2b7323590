"""Hugo sites from their sources: sections, weights, Hugo's URLs, shortcodes left out."""

import json
import math
import re
import tomllib
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from ingest_scripts.layouts.base import (
    SUFFIXES,
    Layout,
    LayoutError,
    from_site_root,
    number,
    read_yaml,
    without_markup,
)
from ingest_scripts.markdown import split_front_matter

_HUGO_CONFIGS = ("hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json")
_SITE_CONFIGS = ("config.toml", "config.yaml", "config.yml", "config.json")  # Hugo's older names
_ESCAPED_SHORTCODE = re.compile(r"\{\{([<%])/\*(.*?)\*/([>%])\}\}", re.DOTALL)  # {{</* x */>}} shows {{< x >}}
_HIGHLIGHT = re.compile(r"\{\{<\s*highlight\s+(\w*)[^>]*>\}\}\n?(.*?)\n?\{\{<\s*/highlight\s*>\}\}", re.DOTALL)
_SHORTCODE = re.compile(r"\{\{<.*?>\}\}|\{\{%.*?%\}\}", re.DOTALL)


class Hugo(Layout):
    name = "hugo"

    def __init__(self, root: Path):
        super().__init__(root)
        project = root if self._config(root) else root.parent  # or its content folder
        config_file = self._config(project)
        config = self._read(config_file)
        content = project / str(config.get("contentDir") or "content")
        self.docs = content if content.is_dir() and content.is_relative_to(root) else root
        self.ugly_urls = config.get("uglyURLs") is True
        self.lower_case = config.get("disablePathToLower") is not True
        self.section_titles: dict[str, str] = {}  # a section folder's title, read by pages()

    @staticmethod
    def _config(folder: Path) -> Path | None:
        """Hugo's configuration file: `hugo.*` (or in its `config/_default/` folder), or
        `config.*` beside a `content/` folder, a name other tools use too: Zola's, which sets
        `base_url` where Hugo sets `baseURL`, is not Hugo's."""
        named = [folder / name for name in _HUGO_CONFIGS] + [folder / "config" / "_default" / name for name in _HUGO_CONFIGS]
        older = [folder / name for name in _SITE_CONFIGS] if (folder / "content").is_dir() else []
        older += [folder / "config" / "_default" / name for name in _SITE_CONFIGS]
        return next(
            (path for path in named + older if path.is_file() and (path in named or not _zola(path))), None
        )

    @staticmethod
    def _read(config: Path | None) -> dict:
        if config is None:
            return {}
        try:
            if config.suffix == ".toml":
                data = tomllib.loads(config.read_text(encoding="utf-8"))
            elif config.suffix == ".json":
                data = json.loads(config.read_text(encoding="utf-8"))
            else:
                data = read_yaml(config)
        except (tomllib.TOMLDecodeError, json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise LayoutError(f"{config}: not a readable Hugo configuration: {exc}") from exc
        if not isinstance(data, dict):
            raise LayoutError(f"{config}: not a Hugo configuration (not a mapping of settings)")
        return data

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
        bundles = {path.parent for path in files if path.stem == "index"}
        # A leaf bundle's other markdown files are its resources, not pages.
        inside = [p for p in files if p.is_relative_to(self.docs) and (p.stem == "index" or p.parent not in bundles)]
        inside += sections
        front = {
            p: split_front_matter(p.read_text(encoding="utf-8", errors="replace"), p.relative_to(self.root).as_posix())[0]
            for p in inside
        }
        self.section_titles = {
            path.relative_to(self.docs).parent.as_posix(): str(front[path].get("title") or "") for path in sections
        }

        def place(path: Path) -> tuple:
            rel = path.relative_to(self.docs)
            if path.stem == "_index":
                return (rel.parent.parts, 0, 0, "")
            weight = number(front[path].get("weight"))
            return (_section_of(rel).parts, 1, weight or math.inf, rel.as_posix())  # 0 is unweighted

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
            url = from_site_root(str(front_matter["url"]))
            return url if url.endswith("/") or PurePosixPath(url).suffix else f"{url}/"
        path = PurePosixPath(rel)
        stem = path.name.rsplit(".", 1)[0]
        parts = [part for part in path.parent.parts if part != "."]
        if stem == "index" and front_matter.get("slug") and parts:  # a bundle: its folder is the page
            parts[-1] = str(front_matter["slug"])
        elif stem not in ("_index", "index"):
            parts.append(str(front_matter.get("slug") or stem))
        parts = [_sanitized(part.lower() if self.lower_case else part) for part in parts]
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
        return without_markup(
            source,
            _ESCAPED_SHORTCODE,
            lambda match: "{{" + match[1] + match[2] + match[3] + "}}",
            lambda rest: _SHORTCODE.sub("", _HIGHLIGHT.sub(lambda match: f"```{match[1]}\n{match[2]}\n```", rest)),
        )


def _sanitized(part: str) -> str:
    """A path part as Hugo's URLs have it: spaces as `-`, only letters, digits and `._-+~#`
    ("What's New (2023)" → "whats-new-2023")."""
    return "".join(ch for ch in re.sub(r"\s+", "-", part.strip()) if ch.isalnum() or ch in "._-+~#")


def _zola(config: Path) -> bool:
    """A Zola site's configuration (its required `base_url`; Hugo's is `baseURL`)."""
    return re.search(r"^\s*base_url\s*[=:]", config.read_text(encoding="utf-8", errors="replace"), re.MULTILINE) is not None


def _section_of(rel: PurePosixPath) -> PurePosixPath:
    """The folder whose section a Hugo page is in: a bundle's `index` page is its folder, a
    page of the folder that holds it."""
    return rel.parent.parent if rel.stem == "index" else rel.parent
