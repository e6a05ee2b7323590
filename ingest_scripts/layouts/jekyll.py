"""Jekyll (GitHub Pages) sites from their sources: posts, collections, permalinks, Liquid left out."""

import re
import tomllib
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from ingest_scripts.layouts.base import (
    KEPT,
    SUFFIXES,
    Layout,
    LayoutError,
    from_site_root,
    published_files,
    read_yaml,
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
    r"|\{::options[^}\n]*/\}|\{::nomarkdown\}|\{:(?!:)[^}\n]*\}",
    re.DOTALL | re.MULTILINE,
)


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
            return from_site_root(str(front_matter["permalink"]))
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
        (`{% include … %}`, `{{ site.title }}`) leave nothing. kramdown's own markup
        (`{:toc}`, `{: .note}`) goes too."""
        kept: list[str] = []

        def keep(match: re.Match[str]) -> str:
            kept.append(match[1])
            return f"\0{len(kept) - 1}\0"

        source = _LIQUID_RAW.sub(keep, source)
        source = _LIQUID_COMMENT.sub("", source)
        source = _LIQUID_HIGHLIGHT.sub(lambda match: f"```{match[1]}\n{match[2]}\n```", source)
        source = _LIQUID.sub("", source)
        source = _KRAMDOWN.sub(lambda match: match[1] or "", source)
        return KEPT.sub(lambda match: kept[int(match[1])], source)
