"""How each generator publishes a folder of markdown: which files become pages, in what order,
under which module, at which URL, with which heading anchors.

- docusaurus: `docusaurus.config.*`, or no other generator's file (the default): permalinks.py;
- mkdocs: `mkdocs.yml` (pages under its `docs_dir`): `a/b.md` → `a/b/` (`a/b.html` with
  `use_directory_urls: false`), anchors as Python-Markdown's toc makes them, modules and order
  from `nav`; content tabs and admonitions read as their bodies, attribute lists, Material's
  icons, `[TOC]` and snippet includes left out;
- mdbook: `book.toml` or `SUMMARY.md` (pages under `src`): only the chapters SUMMARY.md lists,
  in its order, `ch01.md` → `ch01.html` (`README.md` → `index.html`), anchors as mdBook makes
  them, a chapter's module is its part or top-level chapter;
- sphinx: `conf.py` (reStructuredText or MyST markdown): the pages the root document's toctrees reach,
  in their order, then the others the build still makes (`exclude_patterns` left out); a
  page's module is its toctree's caption, or the root document's heading above that toctree;
  `a/b.md` → `a/b.html`, anchors as docutils makes section ids;
- jupyterbook: `_toc.yml` (Jupyter Book 1; MyST markdown, notebooks and reStructuredText): the
  table of contents' pages in its order, then the others the build makes (unless
  `only_build_toc_files`), a page's module its part's caption; `a/b.ipynb` → `a/b.html`, ids
  as docutils makes them; a notebook reads as its markdown cells and its code (not outputs);
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
  and output left out (`raw` kept as written, `highlight` a code block), and kramdown's
  `{:toc}` and attribute lists; `exclude` honoured;
  just-the-docs' `parent` is the module and `nav_order` the order; anchors as GitHub's;
- vitepress: a `.vitepress/config.*` folder (in the folder given or its `docs/`; pages under its
  `srcDir`): the sidebar literal's order and groups (the configuration is read, never run),
  `a/b.md` → `a/b.html` (`a/b` with `cleanUrls`), `a/index.md` → `a/`, anchors as
  VitePress's slugify makes them (`_1-step`, `cafe-deja-vu`); `[[toc]]` and Vue's `{{ … }}`
  outside code left out;
- starlight: Astro's Starlight (`astro.config.*` naming `starlight`, pages under
  `src/content/docs`): `a/B c.md` → `a/b-c/`, `a/index.md` → `a/`, front matter `slug`
  replaces the path, `sidebar.order` orders, anchors as GitHub's;
- docsify: an `index.html` that loads Docsify (markdown the browser renders): `_sidebar.md`'s
  order and groups, `a/b.md` → `#/a/b` (`/a/b` in history mode), `a/README.md` → `#/a/`, a
  heading at `#/a/b?id=slug`, slugs as Docsify makes them;
- plain: markdown as a repository browser shows it: `a/b.md#anchor`, GitHub's anchors;
- html: a generator's output folder (Docusaurus `build/`, MkDocs `site/`, Sphinx `_build/html`,
  mdBook `book/`, Hugo `public/`, VitePress `dist/`): `.html` pages and no markdown. Pages are
  read by html_site.py; a page is served at `a/b/index.html` → `a/b/`, `a/b.html` as it is.

Docusaurus reads the title from front matter or the page's `#` heading; the others take the
page's first heading of any level (mdBook books often open chapters with `##`).
"""


from pathlib import Path

from ingest_scripts.layouts.base import (
    LAYOUTS,
    SUFFIXES,
    Docusaurus,
    Layout,
    LayoutError,
    LayoutName,
    Plain,
    published_files,
)
from ingest_scripts.layouts.built_site import BuiltSite
from ingest_scripts.layouts.docsify import Docsify
from ingest_scripts.layouts.hugo import Hugo
from ingest_scripts.layouts.jekyll import Jekyll
from ingest_scripts.layouts.jupyter_book import JupyterBook
from ingest_scripts.layouts.mdbook import MdBook
from ingest_scripts.layouts.mkdocs import MkDocs
from ingest_scripts.layouts.sphinx import REST_TITLE, Sphinx, doc_target
from ingest_scripts.layouts.starlight import Starlight
from ingest_scripts.layouts.vitepress import VitePress

__all__ = [
    "LAYOUTS", "REST_TITLE", "SUFFIXES", "BuiltSite", "Docsify", "Docusaurus", "Hugo", "Jekyll", "JupyterBook", "Layout", "LayoutError",
    "LayoutName", "MdBook", "MkDocs", "Plain", "Sphinx", "Starlight", "VitePress", "detect_layout", "doc_target",
    "published_files",
]

# The first found wins: the generators named by a file of their own before those whose files
# other tools use too (a leftover `_config.yml`, a `config.toml`).
_DETECTED = (BuiltSite, MdBook, MkDocs, Sphinx, JupyterBook, VitePress, Starlight, Docsify, Hugo, Jekyll)
_BY_NAME: dict[str, type[Layout]] = {
    cls.name: cls for cls in (Docusaurus, MkDocs, MdBook, Sphinx, JupyterBook, Hugo, Jekyll, VitePress, Starlight, Docsify, Plain, BuiltSite)
}


def detect_layout(root: Path, name: LayoutName | None = None) -> Layout:
    """The named layout, else a built site (HTML and no markdown), else the generator whose
    configuration is in `root` (or, for a docs folder given directly, beside it), else
    Docusaurus."""
    if name:
        return _BY_NAME[name](root)
    return next((cls(root) for cls in _DETECTED if cls.found(root)), Docusaurus(root))
