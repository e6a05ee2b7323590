"""Astro Starlight sites from their sources: content ids slugged as Astro makes them."""

import math
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from ingest_scripts.layouts.base import Layout, number, sidebar_items
from ingest_scripts.markdown import split_front_matter
from ingest_scripts.permalinks import slugify

_ASTRO_CONFIGS = ("astro.config.mjs", "astro.config.ts", "astro.config.mts", "astro.config.js", "astro.config.cjs")
_STARLIGHT_CONTENT = Path("src/content/docs")


def sidebar_entries(config: str) -> list[tuple[str, str, bool]]:
    """(page slug or folder, group, is a folder) in the order of the `sidebar` literal passed to
    `starlight(…)`: items `{ label, slug }` or `{ label, link }`, bare slugs ('guides/intro'),
    and `autogenerate: { directory }` groups; the group is the outermost `label` with `items`
    or `autogenerate` around it."""
    entries: list[tuple[str, str, bool]] = []
    for item, around in sidebar_items(config):
        labels = [o["label"] for o in around if ("items" in o or "autogenerate" in o) and "label" in o]
        group = labels[0] if labels else ""
        page = next((item[key] for key in ("slug", "link", "") if key in item), None)
        if page is not None:
            entries.append((page, group, False))
        if "directory" in item and around:
            entries.append((item["directory"], group, True))
    return entries


class Starlight(Layout):
    name = "starlight"

    def __init__(self, root: Path):
        super().__init__(root)
        content = root / _STARLIGHT_CONTENT
        self.docs = content if content.is_dir() else root  # the content folder given directly
        self.order: dict[str, float] = {}  # a page's `sidebar.order`, read by pages()
        self.folder_titles: dict[str, str] = {}  # a folder's index page title, read by pages()
        project = self._project(root)
        configs = [project / name for name in _ASTRO_CONFIGS if (project / name).is_file()] if project else []
        config = configs[0].read_text(encoding="utf-8", errors="replace") if configs else ""
        self.sidebar = sidebar_entries(config)  # the pages' and folders' order and groups
        self.groups: dict[str, str] = {}  # a page's sidebar group, read by pages()

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
        """The content folder's pages: those the sidebar lists in its order (a folder it
        autogenerates at its place), then the others; within a folder by `sidebar.order`
        (unordered after), then by path."""
        inside = [p for p in files if p.is_relative_to(self.docs)]
        slugs: dict[Path, str] = {}
        for path in inside:
            rel = path.relative_to(self.docs)
            front_matter, _ = split_front_matter(
                path.read_text(encoding="utf-8", errors="replace"), path.relative_to(self.root).as_posix()
            )
            slugs[path] = self.page_id(rel.as_posix(), front_matter)
            sidebar = front_matter.get("sidebar")
            if (order := number(sidebar.get("order") if isinstance(sidebar, dict) else None)) is not None:
                self.order[rel.as_posix()] = order
            if rel.stem == "index" and front_matter.get("title"):
                self.folder_titles[rel.parent.as_posix()] = str(front_matter["title"])
        listed: dict[Path, int] = {}
        for position, (target, group, folder) in enumerate(self.sidebar):
            target = target.strip("/")
            for path, slug in slugs.items():
                if path not in listed and (slug == target or (folder and slug.startswith(f"{target}/"))):
                    listed[path] = position
                    self.groups[path.relative_to(self.docs).as_posix()] = group

        def place(path: Path) -> tuple:
            rel = path.relative_to(self.docs)
            return (listed.get(path, len(self.sidebar)), rel.parent.parts, self.order.get(rel.as_posix(), math.inf), rel.as_posix())

        return sorted(inside, key=place), [p for p in files if p not in inside]

    def module_of(self, rel: str) -> str | None:
        """The sidebar group that lists the page; else its folder's index page title, else the
        folder's name, as Starlight's autogenerated sidebar labels its group; pages at the top
        of the content have none."""
        if self.groups.get(rel):
            return self.groups[rel]
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
