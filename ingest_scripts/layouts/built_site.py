"""A generator's output folder: HTML pages read by html_site.py."""

from pathlib import Path

from ingest_scripts.layouts.base import SUFFIXES, Layout, published_files
from ingest_scripts.layouts.sphinx import Sphinx


class BuiltSite(Layout):
    name = "html"

    @staticmethod
    def found(root: Path) -> bool:
        """HTML pages, and no sources but copies of them: no markdown (nor a Sphinx project's
        reStructuredText) other than a page's own source beside it (Node.js's API docs ship
        `policy.md` next to `policy.html`, and readers read the HTML)."""
        pages = {path.with_suffix("") for path in published_files(root, SUFFIXES["HTML"])}
        if not pages:  # no walk for Sphinx's sources either
            return False
        kind = "markdown or reStructuredText" if Sphinx.found(root) else "markdown"
        return all(path.with_suffix("") in pages for path in published_files(root, SUFFIXES[kind]))

    def url_path(self, rel: str, front_matter: dict) -> str:
        """Where a static server serves the file: `a/index.html` at `a/`."""
        served = f"/{rel}"
        return served.removesuffix("index.html") if served.endswith("/index.html") else served

    def page_id(self, rel: str, front_matter: dict) -> str:
        return self.url_path(rel, front_matter).strip("/").removesuffix(".html") or "index"
