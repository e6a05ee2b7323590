"""Jekyll (GitHub Pages) sites from their sources: posts, collections, permalinks, Liquid left out."""

import re
import tomllib
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from ingest_scripts.layouts.base import (
    SUFFIXES,
    Layout,
    LayoutError,
    number,
    published_files,
    read_yaml,
    without_markup,
)
from ingest_scripts.markdown import split_front_matter

_LIQUID_RAW = re.compile(r"\{%-?\s*raw\s*-?%\}(.*?)\{%-?\s*endraw\s*-?%\}", re.DOTALL)
_LIQUID_COMMENT = re.compile(r"\{%-?\s*comment\s*-?%\}.*?\{%-?\s*endcomment\s*-?%\}", re.DOTALL)
_LIQUID_HIGHLIGHT = re.compile(
    r"\{%-?\s*highlight\s+(\w*)[^%]*%\}\n?(.*?)\n?\{%-?\s*endhighlight\s*-?%\}", re.DOTALL
)
_LIQUID = re.compile(r"\{%.*?%\}|\{\{.*?\}\}", re.DOTALL)
_POST_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})-(.+)$")
# kramdown's own markup, outside code: a "* TOC" list item its {:toc} replaces, comments with
# what they hold, option and nomarkdown markers, attribute lists ({: .note}, {:target="_blank"}).
_KRAMDOWN = re.compile(
    r"(```.*?```|~~~.*?~~~|`[^`\n]*`)|\{::comment\}.*?\{:/(?:comment)?\}"
    r"|^[ \t]*(?:[*+-]|\d+\.)[ \t]+TOC[ \t]*\n[ \t]*\{:[ \t]*toc[ \t]*\}[ \t]*$"
    r"|\{::options[^}\n]*/\}|\{::nomarkdown\}|\{:/nomarkdown\}"
    r"|^[ \t]*\{:(?!:)[^}\n]*\}[ \t]*$|(?<=[)\]*_`])\{:(?!:)[^}\n]*\}",  # a block's own line, or after a span
    re.DOTALL | re.MULTILINE,
)


# Files jekyll-optional-front-matter (on GitHub Pages) leaves unpublished without front matter; a
# README is published as its folder's index (jekyll-readme-index) when the folder has none.
_UNPUBLISHED_NAMES = frozenset({
    "readme", "license", "licence", "copying", "code_of_conduct", "contributing", "issue_template",
    "pull_request_template",
})


def _names(value: object) -> list[str]:
    """A configuration list that may be given as one name."""
    return [value] if isinstance(value, str) else [str(v) for v in value] if isinstance(value, list) else []


def _slug(title: str) -> str:
    """Jekyll's `:title`: its "pretty" slugify, case kept ("Hello World" → "Hello-World")."""
    return re.sub(r"(?:[^\w.~!$&'()+,;=@]|_)+", "-", title).strip("-")


class Jekyll(Layout):
    name = "jekyll"
    kind = "markdown (Jekyll's names)"

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
        if not isinstance(collections, dict):  # names alone: collections not published
            collections = {}
        self.collections = {
            str(name): options or {} for name, options in collections.items()
            if isinstance(options, dict) and options.get("output") is True
        }
        plugins = _names(self.config.get("plugins") or self.config.get("gems"))
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
            return read_yaml(path)
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
        patterns = [p.strip("/") for p in _names(self.config.get("exclude"))]
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
            for path in published_files(self.root / folder, SUFFIXES[self.kind])
        ] + [
            path for path in self.root.rglob("_posts/*")
            if path.suffix in SUFFIXES[self.kind] and path.parent != self.root / "_posts"
            and not any(part.startswith((".", "_")) for part in path.parent.relative_to(self.root).parent.parts)
        ]
        candidates = [p for p in files if not self._excluded(PurePosixPath(p.relative_to(self.root).as_posix()))]
        published, left_out = [], [p for p in files if p not in candidates]
        for path in candidates + special:
            rel = path.relative_to(self.root).as_posix()
            source = path.read_text(encoding="utf-8", errors="replace")
            front_matter, _ = split_front_matter(source, rel)
            if source.startswith(("---", "+++")) or path in special or self._optional_page(path):
                self.front_matter[rel] = front_matter
                published.append(path)
            else:
                left_out.append(path)  # Jekyll copies a file without front matter as it is

        def place(path: Path) -> tuple:
            rel = path.relative_to(self.root).as_posix()
            if (order := number(self.front_matter[rel].get("nav_order"))) is not None:
                return (0, order, rel)
            return (2 if path in special else 1, 0, rel)  # posts and collections after the pages

        return sorted(published, key=place), left_out

    def _optional_page(self, path: Path) -> bool:
        """Whether a file without front matter is a page all the same (GitHub Pages' plugins)."""
        if not self.optional_front_matter:
            return False
        if path.stem.lower() == "readme":
            return self.github_pages and not self._has_index(PurePosixPath(path.relative_to(self.root).parent.as_posix()))
        return path.stem.lower() not in _UNPUBLISHED_NAMES

    def module_of(self, rel: str) -> str | None:
        parent = self.front_matter.get(rel, {}).get("parent")
        return str(parent) if parent else None

    def url_path(self, rel: str, front_matter: dict) -> str:
        """The page's default URL, or its front matter `permalink` with the placeholders
        Jekyll fills in (`/blog/:title/`, `/:path/:basename/`)."""
        path = PurePosixPath(rel)
        stem = path.name.rsplit(".", 1)[0]
        given = str(front_matter["permalink"]) if front_matter.get("permalink") else None
        if "_posts" in path.parts:
            return self._post_url(path, stem, front_matter, given)
        if path.parts[0].startswith("_") and path.parts[0][1:] in self.collections:
            name = path.parts[0][1:]
            template = given or str(self.collections[name].get("permalink") or (
                "/:collection/:path/" if self.pretty else "/:collection/:path:output_ext"
            ))
            inner = PurePosixPath(*path.parts[1:]).with_suffix("").as_posix()
            return self._expand(template, {"collection": name, "path": inner, "name": stem, "title": _slug(stem)})
        folder = "" if str(path.parent) == "." else str(path.parent)
        if given:
            return self._expand(given, {"path": folder, "basename": stem, "name": stem, "title": _slug(stem)})
        if stem == "index" or (stem.lower() == "readme" and self.github_pages and not self._has_index(path.parent)):
            return "/" + quote(f"{folder}/" if folder else "")
        return "/" + quote(f"{folder}/{stem}" if folder else stem) + ("/" if self.pretty else ".html")

    def _has_index(self, folder: PurePosixPath) -> bool:
        return any((self.root / folder / f"index{suffix}").is_file() for suffix in (*SUFFIXES[self.kind], ".html"))

    def _post_url(self, path: PurePosixPath, stem: str, front_matter: dict, given: str | None) -> str:
        named = _POST_NAME.match(stem)
        year, month, day, title = named.groups() if named else ("", "", "", stem)
        date = str(front_matter.get("date") or "")
        if re.match(r"\d{4}-\d{2}-\d{2}", date):
            year, month, day = date[:4], date[5:7], date[8:10]
        categories = list(path.parts[: path.parts.index("_posts")])
        listed = front_matter.get("categories")
        categories += listed.split() if isinstance(listed, str) else [str(c) for c in listed or [] if c]
        if isinstance(front_matter.get("category"), str | int):
            categories.append(str(front_matter["category"]))  # one category, spaces and all
        values = {
            "categories": "/".join(dict.fromkeys(c.lower() for c in categories)),
            "year": year, "month": month, "day": day, "title": _slug(str(front_matter.get("slug") or title)),
            "i_month": month.lstrip("0"), "i_day": day.lstrip("0"),
        }
        return self._expand(given or self.post_style, values)

    @staticmethod
    def _expand(template: str, values: dict[str, str]) -> str:
        values = {**values, "output_ext": ".html"}
        url = re.sub(r":(\w+)", lambda match: values.get(match[1], match[0]), template)
        return "/" + quote(re.sub(r"/{2,}", "/", url).lstrip("/"))

    def readable(self, source: str) -> str:
        """Liquid out: Jekyll renders it before the markdown. `raw` blocks show as written,
        `highlight` blocks are code, comments go with what they hold, other tags and output
        (`{% include … %}`, `{{ site.title }}`) leave nothing. kramdown's own markup
        (`{:toc}`, `{: .note}`) goes too."""
        return without_markup(source, _LIQUID_RAW, lambda match: match[1], _without_liquid)


def _without_liquid(source: str) -> str:
    source = _LIQUID_COMMENT.sub("", source)
    source = _LIQUID_HIGHLIGHT.sub(lambda match: f"```{match[1]}\n{match[2]}\n```", source)
    source = _LIQUID.sub("", source)
    return _KRAMDOWN.sub(lambda match: match[1] or "", source)
