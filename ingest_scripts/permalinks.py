"""URLs and heading anchors exactly as Docusaurus renders them (docs plugin defaults).

- number prefixes (`01-`, `02_`, `3.`) are stripped from folder and file names, except
  prefixes that look like versions or dates (`1.2-notes`, `2024-01-01-post`);
- front matter `id` replaces the file name, `slug` replaces the whole path (relative slugs
  resolve against the folder);
- `README.md`, `index.md` or a file named like its folder is the folder's index page;
- heading anchors follow github-slugger: lower case, punctuation and emoji removed, spaces to
  `-`, repeated slugs on a page get `-1`, `-2`, …; `{#custom-id}` is honoured.
"""

import posixpath
import re
import unicodedata
from collections.abc import Callable
from pathlib import PurePosixPath

_NUMBER_PREFIX = re.compile(r"^\d+\s*[-_.]+\s*(?=[^-_.\s])")
_VERSION_LIKE = re.compile(r"^\d+[-_.]\d+")
_CUSTOM_ID = re.compile(r"\s*\{#([^}\s]+)\}\s*$")
# An attribute list ending a heading (Hugo, VitePress, MkDocs' attr_list): `{#id .class key=value}`
# gives the heading its id, `{.class}` none; neither is part of its text.
_ATTRIBUTE = r"(?:[#.][\w-]+|[\w-]+=(?:\"[^\"]*\"|'[^']*'|[^\s}]+))"
_ATTRIBUTES = re.compile(rf"\s*\{{\s*({_ATTRIBUTE}(?:\s+{_ATTRIBUTE})*)\s*\}}\s*$")
INDEX_NAMES = {"index", "readme", "_index"}  # _index: a Hugo section's own page


def strip_number_prefix(name: str) -> str:
    if _VERSION_LIKE.match(name):
        return name
    return _NUMBER_PREFIX.sub("", name)


def is_index_page(source_path: str) -> bool:
    path = PurePosixPath(source_path)
    stem = path.name.split(".")[0].lower()
    parent = path.parent.name.lower()
    return stem in INDEX_NAMES or (parent != "" and stem == parent)


def doc_id(source_path: str, front_matter_id: str | None = None) -> str:
    path = PurePosixPath(source_path)
    base = front_matter_id or strip_number_prefix(_stem(path.name))
    folder = _stripped_folder(path)
    return f"{folder}/{base}" if folder else base


def permalink(
    source_path: str,
    *,
    front_matter_id: str | None = None,
    slug: str | None = None,
    route_base: str = "/docs",
) -> str:
    """The page path (no origin) Docusaurus gives `source_path` (relative to the docs root)."""
    path = PurePosixPath(source_path)
    folder = _stripped_folder(path)
    folder_slug = f"/{folder}/" if folder else "/"
    if slug and slug.startswith("/"):
        page = slug
    elif not slug and is_index_page(source_path):
        page = folder_slug
    else:
        base = slug or front_matter_id or strip_number_prefix(_stem(path.name))
        page = posixpath.normpath(posixpath.join(folder_slug, base))
    return _join_url(route_base, page)


def page_url(base_url: str, path: str) -> str:
    return base_url.rstrip("/") + path if base_url else path


def split_custom_id(heading: str) -> tuple[str, str | None]:
    """`"Setup {#setup}"` → `("Setup", "setup")`; `"Setup {#setup .big}"` too, and
    `"Setup {.big}"` → `("Setup", None)`."""
    if match := _CUSTOM_ID.search(heading):
        return heading[: match.start()], match.group(1)
    if match := _ATTRIBUTES.search(heading):
        ids = [item[1:] for item in match.group(1).split() if item.startswith("#")]
        return heading[: match.start()], ids[0] if ids else None
    return heading, None


def slugify(text: str) -> str:
    kept = (
        ch
        for ch in text.lower()
        if ch in "-_ " or unicodedata.category(ch)[0] in "LNM"
    )
    return "".join(kept).replace(" ", "-")


class HeadingSlugger:
    """Gives each heading of one page a unique anchor, as github-slugger does by default
    (`slug`, `slug-1`, `slug-2`); other generators pass their own slug and suffix."""

    def __init__(
        self, slug: Callable[[str], str] = slugify, duplicate: str = "{slug}-{n}", fragment: str = "#{anchor}"
    ) -> None:
        self._slug = slug
        self._duplicate = duplicate
        self._fragment = fragment  # how a link names the anchor (Docsify's routes: "?id={anchor}")
        self._seen: dict[str, int] = {}

    def link(self, page_url: str, anchor: str) -> str:
        """The URL of the heading `anchor` on the page at `page_url`."""
        return page_url + self._fragment.format(anchor=anchor) if anchor else page_url

    def anchor(self, heading_text: str) -> str:
        text, custom = split_custom_id(heading_text)
        if custom:
            self._seen[custom] = self._seen.get(custom, 0)
            return custom
        base = self._slug(text.strip())
        slug = base
        while slug in self._seen:
            self._seen[base] += 1
            slug = self._duplicate.format(slug=base, n=self._seen[base])
        self._seen[slug] = 0
        return slug


def _stem(file_name: str) -> str:
    for ext in (".mdx", ".md"):
        if file_name.endswith(ext):
            return file_name[: -len(ext)]
    return file_name


def _stripped_folder(path: PurePosixPath) -> str:
    parts = [strip_number_prefix(p) for p in path.parent.parts if p not in ("", ".")]
    return "/".join(parts)


def _join_url(route_base: str, page: str) -> str:
    base = "/" + route_base.strip("/") if route_base.strip("/") else ""
    return re.sub(r"/{2,}", "/", f"{base}/{page.lstrip('/')}")
