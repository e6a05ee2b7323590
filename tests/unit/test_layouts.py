"""Markdown published by other generators: mdBook, MkDocs, Sphinx (MyST), Jupyter Book, Hugo, Jekyll,
VitePress and Starlight projects get their real titles, modules, order, URLs and anchors; all but mdBook's are checked
against a real build."""

import html
import json
import re
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest

from ingest_scripts import rest
from ingest_scripts.html_site import read_page
from ingest_scripts.layouts import (
    Hugo,
    Jekyll,
    JupyterBook,
    LayoutError,
    MdBook,
    MkDocs,
    Sphinx,
    Starlight,
    VitePress,
    detect_layout,
)
from ingest_scripts.markdown import parse_blocks
from ingest_scripts.pipeline import BookPlan, IngestError, plan_book
from ingest_scripts.rest import read_rest
from tests.support.books import mkdocs_build, sphinx_build, write_book

PROSE = (
    "It is written out at some length so that the section makes a passage of its own here. "
    "Small sections are read together with the next one, which would hide the anchor we check, "
    "so each section holds a few sentences like these ones."
)

MDBOOK = {
    "book.toml": '[book]\ntitle = "Cargo by Example"\nsrc = "src"\n',
    "src/SUMMARY.md": """# Summary

[Foreword](foreword.md)

# Getting Started

- [Getting Started](ch01-00-getting-started.md)
    - [Installation](ch01-01-installation.md)
    - [Hello, Cargo!](ch01-03-hello-cargo.md)
- [A draft chapter]()

# Advanced Topics

1. [Packages](ch07-00-packages.md)
""",
    "src/foreword.md": f"# Foreword\n\nThis book teaches Cargo. {PROSE}\n",
    "src/ch01-00-getting-started.md": f"# Getting Started\n\nLet us start. {PROSE}\n",
    "src/ch01-01-installation.md": (
        f"## Installation\n\nInstall the toolchain with rustup. {PROSE}\n\n"
        f"### Installing on Linux or macOS\n\nRun the installer script. {PROSE}\n"
    ),
    "src/ch01-03-hello-cargo.md": f"""## Hello, Cargo!

Cargo downloads [the libraries][crates] your code depends on. {PROSE}

<!-- manual-regeneration
cd listings/ch01/no-listing-hello
cargo new hello_cargo
-->

### Building and Running a Cargo Project

Build the project with `cargo build`. {PROSE}

### Building and Running a Cargo Project

The same heading again, as books sometimes have. {PROSE}

[crates]: https://crates.io/
""",
    "src/ch07-00-packages.md": f"## Packages and Crates\n\nA crate is the smallest unit. {PROSE}\n",
    "src/unlisted.md": f"# Unlisted\n\nNot in SUMMARY.md, so not published. {PROSE}\n",
    "README.md": f"# Cargo by Example\n\nThe repository's own read-me. {PROSE}\n",
}


def test_an_mdbook_book_gets_its_titles_modules_order_and_urls(tmp_path: Path) -> None:
    root = write_book(tmp_path / "book", MDBOOK)
    assert isinstance(detect_layout(root), MdBook)
    plan = plan_book(root, "cargo", "https://example.org/book")
    assert plan.layout == "mdbook"
    pages = [(p.source_path, p.title, p.module, p.url) for p in plan.pages]
    assert pages == [
        ("src/foreword.md", "Foreword", "Foreword", "https://example.org/book/foreword.html"),
        ("src/ch01-00-getting-started.md", "Getting Started", "Getting Started",
         "https://example.org/book/ch01-00-getting-started.html"),
        ("src/ch01-01-installation.md", "Installation", "Getting Started",
         "https://example.org/book/ch01-01-installation.html"),
        ("src/ch01-03-hello-cargo.md", "Hello, Cargo!", "Getting Started",
         "https://example.org/book/ch01-03-hello-cargo.html"),
        ("src/ch07-00-packages.md", "Packages and Crates", "Advanced Topics",
         "https://example.org/book/ch07-00-packages.html"),
    ]
    assert set(plan.skipped_files) == {"README.md", "src/SUMMARY.md", "src/unlisted.md"}
    anchors = [c.url.split("#", 1)[1] for c in plan.chunks if c.source_path.endswith("hello-cargo.md")]
    # mdBook's ids: "Hello, Cargo!" → hello-cargo; a repeated heading gets -1
    assert anchors == ["hello-cargo", "building-and-running-a-cargo-project",
                       "building-and-running-a-cargo-project-1"]
    text = "\n".join(c.text for c in plan.chunks)
    assert "manual-regeneration" not in text and "[crates]" not in text and "crates.io" not in text
    assert "Cargo downloads the libraries your code depends on." in text


def test_mdbook_without_summary_is_a_clear_error(tmp_path: Path) -> None:
    root = write_book(tmp_path / "book", {"book.toml": "[book]\n", "src/a.md": "# A\n"})
    with pytest.raises(ValueError, match="SUMMARY.md is missing"):
        plan_book(root, "b")


MKDOCS = {
    "mkdocs.yml": """site_name: Widgets
nav:
  - Home: index.md
  - 'User Guide':
      - 'Writing Your Docs': user-guide/writing.md
      - user-guide/configuration.md
  - About: about.md
markdown_extensions:
  - admonition
  - toc:
      permalink: false
""",
    "docs/index.md": f"# Widgets\n\nWidgets make dashboards. {PROSE}\n\n## Getting started\n\nInstall with pip. {PROSE}\n",
    "docs/user-guide/writing.md": (
        f"# Writing your docs\n\nPages are markdown files. {PROSE}\n\n"
        f"## File layout & naming\n\nPut pages under docs. {PROSE}\n\n"
        f"## File layout & naming\n\nThe same heading twice. {PROSE}\n\n"
        f"## Café déjà vu: `mkdocs.yml`!\n\nAccents and code in a heading. {PROSE}\n"
    ),
    "docs/user-guide/configuration.md": (
        f"# Configuration\n\nEdit the config file. {PROSE}\n\n## Themes\n\nPick a theme. {PROSE}\n\n"
        f'!!! warning "Mind the theme"\n\n    Themes may change how anchors look. {PROSE}\n\n'
        f"??? note\n    Collapsed notes are prose too. {PROSE}\n"
    ),
    "docs/about.md": f"# About\n\nWho makes widgets. {PROSE}\n\n### License\n\nMIT licensed. {PROSE}\n",
    "README.md": f"# Repository\n\nNot part of the site. {PROSE}\n",
}


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids.update(value for name, value in attrs if name == "id" and value)


def anchors_in_build(plan: BookPlan, site: Path) -> int:
    """Checks that every chunk's page is in the built `site` (`a/` served as `a/index.html`, a
    clean `a/b` as `a/b.html`) and its anchor an id on that page; returns how many anchors were
    checked."""
    checked = 0
    for chunk in plan.chunks:
        path, _, anchor = chunk.url.partition("#")
        page = site / unquote(path).lstrip("/")
        if path.endswith("/"):
            page = page / "index.html"
        elif not page.suffix:  # a clean URL, served from its .html file
            page = page.with_name(page.name + ".html")
        assert page.is_file(), chunk.url
        if anchor:
            ids = _Ids()
            ids.feed(page.read_text(encoding="utf-8"))
            assert anchor in ids.ids, (chunk.url, sorted(ids.ids))
            checked += 1
    return checked


def myst_read_and_built(tmp_path: Path, conf: str, page: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """A MyST page's blocks (kind, text) as the markdown reader reads its source, and as the
    built-site reader reads the page Sphinx builds from it with `conf`."""
    root = write_book(tmp_path / "project", {"docs/conf.py": f'project = "Keys"\n{conf}', "docs/index.md": page})
    built = read_page((sphinx_build(root / "docs", tmp_path / "site") / "index.html").read_text(encoding="utf-8"),
                      "index.html")
    assert built is not None
    return [(b.kind, b.text) for b in parse_blocks(page, 0)], [(b.kind, b.text) for b in built.blocks]


def test_an_mkdocs_project_links_to_pages_and_anchors_of_its_real_build(tmp_path: Path) -> None:
    root = write_book(tmp_path / "project", MKDOCS)
    assert isinstance(detect_layout(root), MkDocs)
    plan = plan_book(root, "widgets")
    assert [(p.source_path, p.title, p.module) for p in plan.pages] == [
        ("docs/index.md", "Widgets", ""),
        ("docs/user-guide/writing.md", "Writing your docs", "User Guide"),
        ("docs/user-guide/configuration.md", "Configuration", "User Guide"),
        ("docs/about.md", "About", ""),
    ]
    assert plan.skipped_files == ["README.md"]
    site = tmp_path / "site"
    mkdocs_build(root, site)
    assert anchors_in_build(plan, site) >= 5
    text = "\n".join(c.text for c in plan.chunks)
    assert "!!!" not in text and "???" not in text and "Mind the theme" not in text
    assert "\nThemes may change how anchors look." in text  # prose, no longer indented as code
    assert "Collapsed notes are prose too." in text
    anchors = {c.url.split("#", 1)[1] for c in plan.chunks if "#" in c.url}
    assert {"file-layout-naming", "file-layout-naming_1", "cafe-deja-vu-mkdocsyml"} <= anchors


HUGO_PAGE = "<html><head><title>{{ .Title }}</title></head><body><main>{{ .Content }}</main></body></html>\n"
HUGO = {
    "hugo.toml": 'baseURL = "https://example.org/"\ntitle = "Widgets"\n',
    "layouts/_default/single.html": HUGO_PAGE,
    "layouts/_default/list.html": HUGO_PAGE,
    "layouts/shortcodes/note.html": '<div class="note">{{ .Inner | markdownify }}</div>\n',
    "archetypes/default.md": '---\ntitle: "{{ .Name }}"\n---\n',
    "README.md": f"# Repository\n\nNot part of the site. {PROSE}\n",
    "content/_index.md": f"---\ntitle: Widgets\n---\nWidgets make dashboards. {PROSE}\n",
    "content/docs/_index.md": f'+++\ntitle = "User Guide"\n+++\nHow to use widgets. {PROSE}\n',
    "content/docs/Getting Started.md": (
        f'+++\ntitle = "Getting Started"\nweight = 2\n+++\n\n## Before you start: `widgetd`!\n\n'
        f"{{{{< note >}}}}\nWidgets need **Python 3.11** or newer. {PROSE}\n{{{{< /note >}}}}\n\n"
        f"## Before you start: `widgetd`!\n\nThe same heading twice. {{{{% note %}}}}Run it as root.{{{{% /note %}}}} {PROSE}\n\n"
        f"## Café déjà vu {{#custom}}\n\nAn id of its own. {PROSE}\n"
    ),
    "content/docs/configure/index.md": (
        f"---\ntitle: Configuring\nslug: configuration\nweight: 1\n---\n\n## Themes\n\n"
        f"Write `{{{{</* note */>}}}}` for a note. {{{{< figure src=\"/x.png\" caption=\"A widget\" >}}}} {PROSE}\n\n"
        f'{{{{< highlight toml >}}}}\ntheme = "dark"\n{{{{< /highlight >}}}}\n'
    ),
    "content/docs/configure/notes.md": f"---\ntitle: Notes\n---\n\nA bundle's resource, not a page. {PROSE}\n",
    "content/docs/What's New (2023).md": f"---\ntitle: What's New\n---\n\n## Faster\n\nIt is faster. {PROSE}\n",
    "content/docs/faq.md": (
        f"---\ntitle: FAQ\nurl: /questions\n---\n\n## Why widgets?\n\nBecause. {PROSE}\n\n"
        f"## Styled {{.big}}\n\nA class, no id. {PROSE}\n\n## Both {{#both-id .big}}\n\nAn id and a class. {PROSE}\n"
    ),
    "content/docs/draft.md": f"---\ntitle: Draft\ndraft: true\n---\n\nNot published. {PROSE}\n",
}


def test_a_hugo_site_links_to_pages_and_anchors_of_its_real_build(tmp_path: Path) -> None:
    root = write_book(tmp_path / "project", HUGO)
    assert isinstance(detect_layout(root), Hugo) and isinstance(detect_layout(root / "content"), Hugo)
    plan = plan_book(root, "widgets")
    assert [(p.source_path, p.title, p.module, p.url) for p in plan.pages] == [
        ("content/_index.md", "Widgets", "", "/"),
        ("content/docs/_index.md", "User Guide", "User Guide", "/docs/"),
        ("content/docs/configure/index.md", "Configuring", "User Guide", "/docs/configuration/"),
        ("content/docs/Getting Started.md", "Getting Started", "User Guide", "/docs/getting-started/"),
        ("content/docs/What's New (2023).md", "What's New", "User Guide", "/docs/whats-new-2023/"),
        ("content/docs/faq.md", "FAQ", "User Guide", "/questions/"),
    ]
    assert sorted(plan.skipped_files) == [
        "README.md", "archetypes/default.md", "content/docs/configure/notes.md", "content/docs/draft.md",
    ]
    site = tmp_path / "public"
    subprocess.run(["hugo", "--quiet", "-s", str(root), "-d", str(site)], check=True, capture_output=True)
    assert anchors_in_build(plan, site) >= 4
    text = "\n".join(c.text for c in plan.chunks)
    assert "{{%" not in text and "figure" not in text and "{{< /note >}}" not in text and "+++" not in text
    assert "Widgets need **Python 3.11** or newer." in text and "Run it as root." in text
    assert "Write `{{< note >}}` for a note." in text  # an escaped shortcode shows as written
    assert '```toml\ntheme = "dark"\n```' in text
    anchors = {c.url.split("#", 1)[1] for c in plan.chunks if "#" in c.url}
    assert {"before-you-start-widgetd", "before-you-start-widgetd-1", "custom", "themes", "styled", "both-id"} <= anchors
    assert {c.heading for c in plan.chunks} >= {"Styled", "Both"}


def test_a_zola_site_is_not_a_hugo_site_and_hugos_config_folder_is(tmp_path: Path) -> None:
    zola = write_book(tmp_path / "zola", {"config.toml": 'base_url = "https://example.org"\n', "content/a.md": "# A\n"})
    assert not isinstance(detect_layout(zola), Hugo)
    hugo = write_book(tmp_path / "hugo", {"config/_default/hugo.toml": 'baseURL = "/"\n', "content/a.md": "# A\n"})
    assert isinstance(detect_layout(hugo), Hugo)


def test_a_hugo_page_with_broken_toml_front_matter_is_a_clear_error(tmp_path: Path) -> None:
    root = write_book(tmp_path / "project", {**HUGO, "content/docs/faq.md": '+++\ntitle = "FAQ\n+++\nBody.\n'})
    with pytest.raises(ValueError, match="content/docs/faq.md: front matter"):
        plan_book(root, "widgets")


JEKYLL = {
    "_config.yml": "title: Widgets\nexclude: [notes.md]\ncollections:\n  recipes:\n    output: true\n",
    "Gemfile": 'source "https://rubygems.org"\ngem "jekyll"\n',
    "_includes/note.html": "<div class=\"note\">{{ include.content }}</div>\n",
    "README.md": f"# Repository\n\nNot part of the site. {PROSE}\n",
    "notes.md": f"---\ntitle: Notes\n---\nExcluded by the configuration. {PROSE}\n",
    "static.md": f"# A file without front matter\n\nCopied as it is, not a page. {PROSE}\n",
    "index.md": f"---\ntitle: Widgets\nnav_order: 1\n---\n# Widgets\n\nWelcome to {{{{ site.title }}}}. {PROSE}\n",
    "docs/install.md": (
        f"---\ntitle: Installing\nparent: User Guide\nnav_order: 2\n---\n\n* TOC\n{{:toc}}\n\n## Before you start: `widgetd`!\n\n"
        f'{{% include note.html content="Needs Python" %}}\nWidgets need Python 3.11. {PROSE}\n\n'
        f"## Before you start: `widgetd`!\n\nThe same heading twice. {PROSE}\n{{: .note }}\n\n"
        f"See [the guide](guide/){{:target=\"_blank\"}}. Elixir returns `{{:ok, pid}}`. {PROSE}\n\n"
        f"## 1. Numbered step\n\nA number first. {PROSE}\n\n"
        f"## Custom {{#custom}}\n\nAn id of its own. {{% comment %}}hidden{{% endcomment %}}{PROSE}\n\n"
        "{% highlight toml %}\ntheme = \"dark\"\n{% endhighlight %}\n\n"
        "{% raw %}Write `{{ page.title }}` for the title.{% endraw %}\n"
    ),
    "docs/guide/index.md": f"---\ntitle: Guide\n---\n\n## Configuring\n\nSettings. {PROSE}\n",
    "about.markdown": f"---\ntitle: About\n---\n\n## Makers\n\nWho makes widgets. {PROSE}\n",
    "docs/moved.md": f"---\ntitle: Moved\npermalink: /elsewhere/\n---\n\n## Here\n\nMoved. {PROSE}\n",
    "_posts/2024-03-05-release.md": f"---\ntitle: Release\ncategories: news\n---\n\n## Released\n\nOut now. {PROSE}\n",
    "News/_posts/2024-03-06-Big Day.md": (
        f"---\ntitle: Big day\ncategory: Big Deal\n---\n\n## Celebrated\n\nA big day. {PROSE}\n"
    ),
    "_posts/2024-03-07-linked.md": f"---\ntitle: Linked\npermalink: /blog/:title/\n---\n\n## Here\n\nLinked. {PROSE}\n",
    "docs/placed.md": f"---\ntitle: Placed\npermalink: /:path/:basename/\n---\n\n## There\n\nPlaced. {PROSE}\n",
    "_recipes/soup.md": f"---\ntitle: Soup\n---\n\n## Stir\n\nStir well. {PROSE}\n",
}


@pytest.mark.parametrize("pretty", [False, True])
def test_a_jekyll_site_links_to_pages_and_anchors_of_its_real_build(tmp_path: Path, pretty: bool) -> None:
    config = JEKYLL["_config.yml"] + ("permalink: pretty\n" if pretty else "")
    root = write_book(tmp_path / "project", {**JEKYLL, "_config.yml": config})
    assert isinstance(detect_layout(root), Jekyll)
    plan = plan_book(root, "widgets")
    ext = "/" if pretty else ".html"
    assert [(p.source_path, p.title, p.module, p.url) for p in plan.pages] == [
        ("index.md", "Widgets", "", "/"),
        ("docs/install.md", "Installing", "User Guide", f"/docs/install{ext}"),
        ("about.markdown", "About", "", f"/about{ext}"),
        ("docs/guide/index.md", "Guide", "Guide", "/docs/guide/"),
        ("docs/moved.md", "Moved", "", "/elsewhere/"),
        ("docs/placed.md", "Placed", "", "/docs/placed/"),
        ("News/_posts/2024-03-06-Big Day.md", "Big day", "", f"/news/big%20deal/2024/03/06/Big-Day{ext}"),
        ("_posts/2024-03-05-release.md", "Release", "", f"/news/2024/03/05/release{ext}"),
        ("_posts/2024-03-07-linked.md", "Linked", "", "/blog/linked/"),
        ("_recipes/soup.md", "Soup", "", f"/recipes/soup{ext}"),
    ]
    assert sorted(plan.skipped_files) == ["README.md", "notes.md", "static.md"]
    site = tmp_path / "site"
    subprocess.run(["jekyll", "build", "-q", "-s", str(root), "-d", str(site)], check=True, capture_output=True)
    assert anchors_in_build(plan, site) >= 6
    text = "\n".join(c.text for c in plan.chunks)
    assert "{%" not in text and "site.title" not in text and "hidden" not in text and "Needs Python" not in text
    assert '```toml\ntheme = "dark"\n```' in text and "Write `{{ page.title }}` for the title." in text
    assert "TOC" not in text and "{:" not in text.replace("`{:ok, pid}`", "")
    assert "See the guide. Elixir returns `{:ok, pid}`." in text
    anchors = {c.url.split("#", 1)[1] for c in plan.chunks if "#" in c.url}
    assert {"before-you-start-widgetd", "before-you-start-widgetd-1", "1-numbered-step", "custom"} <= anchors


def test_a_github_pages_site_publishes_markdown_without_front_matter_and_readmes_as_indexes(tmp_path: Path) -> None:
    files = {name: text for name, text in JEKYLL.items() if name != "Gemfile"}
    files["guide/README.md"] = f"# The guide\n\nA folder's README is its index on GitHub Pages. {PROSE}\n"
    files["LICENSE.md"] = f"# License\n\nMIT. {PROSE}\n"
    plan = plan_book(write_book(tmp_path / "project", files), "widgets")
    urls = {p.source_path: p.url for p in plan.pages}
    assert urls["static.md"] == "/static.html" and urls["guide/README.md"] == "/guide/"
    # The site has its own index.md; a license is no page without front matter.
    assert sorted(plan.skipped_files) == ["LICENSE.md", "README.md", "notes.md"]


GENERATORS = Path(__file__).parents[1] / "support" / "site-generators"  # VitePress, Starlight: `make test`
VITEPRESS_SITE = {
    "README.md": f"# Repository\n\nNot part of the site. {PROSE}\n",
    "docs/.vitepress/config.mjs": 'export default { title: "Widgets", srcDir: "src" }\n',
    "docs/src/index.md": "---\nlayout: home\nhero:\n  name: Widgets\n---\n",
    "docs/src/guide/index.md": f"# Guide\n\nHow to use widgets. {PROSE}\n",
    "docs/src/guide/Getting Started.md": (
        f"# Getting Started\n\n[[toc]]\n\n## Installation <Badge type=\"tip\" text=\"1.9\" />\n\n"
        f"::: tip Before you start\nWidgets need Node 18. {PROSE}\n:::\n\n"
        f"## Café déjà vu: `vitepress.config`!\n\nAccents. The title is {{{{ $frontmatter.title }}}}. {PROSE}\n\n"
        f"## 1. Numbered step\n\nA number first. {PROSE}\n\n"
        f"## Custom {{#custom-id}}\n\nAn id of its own. {PROSE}\n\n"
        f"## Installation\n\nThe same heading twice. Write `{{{{ count }}}}` to show it. {PROSE}\n\n"
        f"## Styled {{.big}}\n\nA class, no id. {PROSE}\n"
    ),
}


@pytest.mark.parametrize("clean_urls", [False, True])
def test_a_vitepress_site_links_to_pages_and_anchors_of_its_real_build(tmp_path: Path, clean_urls: bool) -> None:
    # Built inside VitePress's own folder, where Node finds the package.
    with tempfile.TemporaryDirectory(dir=GENERATORS, prefix="site-") as where:
        sidebar = "[{ text: 'Basics', items: [{ text: 'Guide', link: '/guide/' }, { text: 'Start', link: '/guide/Getting Started' }] }]"
        clean = ", cleanUrls: true" if clean_urls else ""
        config = f'export default {{ title: "Widgets", srcDir: "src"{clean}, themeConfig: {{ sidebar: {sidebar} }} }}\n'
        root = write_book(Path(where), {**VITEPRESS_SITE, "docs/.vitepress/config.mjs": config})
        assert isinstance(detect_layout(root), VitePress) and isinstance(detect_layout(root / "docs"), VitePress)
        plan = plan_book(root, "widgets")
        ext = "" if clean_urls else ".html"
        assert [(p.source_path, p.title, p.module, p.url) for p in plan.pages] == [  # the sidebar's order and groups
            ("docs/src/guide/index.md", "Guide", "Basics", "/guide/"),
            ("docs/src/guide/Getting Started.md", "Getting Started", "Basics", f"/guide/Getting%20Started{ext}"),
        ]
        assert sorted(plan.skipped_files) == ["README.md", "docs/src/index.md"]
        subprocess.run([str(GENERATORS / "node_modules" / ".bin" / "vitepress"), "build", str(root / "docs")],
                       check=True, capture_output=True, cwd=root)
        site = root / "docs" / ".vitepress" / "dist"
        assert anchors_in_build(plan, site) >= 4
        text = "\n".join(c.text for c in plan.chunks)
        assert "[[toc]]" not in text and "$frontmatter" not in text and "Write `{{ count }}` to show it." in text
        anchors = {c.url.split("#", 1)[1] for c in plan.chunks if "#" in c.url}
        assert {"installation", "cafe-deja-vu-vitepress-config", "_1-numbered-step", "custom-id", "installation-1",
                "styled"} <= anchors


STARLIGHT = {
    "package.json": '{"type": "module"}\n',
    "astro.config.mjs": (
        "import { defineConfig } from 'astro/config';\nimport starlight from '@astrojs/starlight';\n"
        "export default defineConfig({ integrations: [starlight({ title: 'Widgets' })] });\n"
    ),
    "src/content.config.ts": (
        "import { defineCollection } from 'astro:content';\n"
        "import { docsLoader } from '@astrojs/starlight/loaders';\n"
        "import { docsSchema } from '@astrojs/starlight/schema';\n"
        "export const collections = { docs: defineCollection({ loader: docsLoader(), schema: docsSchema() }) };\n"
    ),
    "README.md": f"# Repository\n\nNot part of the site. {PROSE}\n",
    "src/content/docs/index.md": f"---\ntitle: Widgets\n---\n\nWidgets make dashboards. {PROSE}\n",
    "src/content/docs/Guide/Getting Started.md": (
        f"---\ntitle: Getting Started\nsidebar:\n  order: 2\n---\n\n## Installation\n\n"
        f":::note[Before you start]\nWidgets need Node 18. {PROSE}\n:::\n\n"
        f"## Café déjà vu: `astro.config`!\n\nAccents. {PROSE}\n\n"
        f"## 1. Numbered step\n\nA number first. {PROSE}\n\n"
        f"## Installation\n\nThe same heading twice. {PROSE}\n"
    ),
    "src/content/docs/Guide/configure.md": f"---\ntitle: Configuring\nsidebar:\n  order: 1\n---\n\n## Themes\n\nPick one. {PROSE}\n",
    "src/content/docs/Guide/moved.md": f"---\ntitle: Moved\nslug: elsewhere/here\n---\n\n## Here\n\nMoved. {PROSE}\n",
}


def test_a_starlight_site_links_to_pages_and_anchors_of_its_real_build() -> None:
    with tempfile.TemporaryDirectory(dir=GENERATORS, prefix="site-") as where:
        root = write_book(Path(where), STARLIGHT)
        assert isinstance(detect_layout(root), Starlight)
        assert isinstance(detect_layout(root / "src" / "content" / "docs"), Starlight)
        plan = plan_book(root, "widgets")
        assert [(p.source_path, p.title, p.module, p.url) for p in plan.pages] == [
            ("src/content/docs/index.md", "Widgets", "", "/"),
            ("src/content/docs/Guide/configure.md", "Configuring", "Guide", "/guide/configure/"),
            ("src/content/docs/Guide/Getting Started.md", "Getting Started", "Guide", "/guide/getting-started/"),
            ("src/content/docs/Guide/moved.md", "Moved", "Guide", "/elsewhere/here/"),
        ]
        assert plan.skipped_files == ["README.md"]
        subprocess.run([str(GENERATORS / "node_modules" / ".bin" / "astro"), "build", "--root", str(root)],
                       check=True, capture_output=True, cwd=root)
        assert anchors_in_build(plan, root / "dist") >= 5
        text = "\n".join(c.text for c in plan.chunks)
        assert ":::" not in text and "Widgets need Node 18." in text
        anchors = {c.url.split("#", 1)[1] for c in plan.chunks if "#" in c.url}
        assert {"installation", "café-déjà-vu-astroconfig", "1-numbered-step", "installation-1"} <= anchors


JUPYTER_BOOK_BIN = Path(__file__).parents[1] / "support" / "jupyter-book" / ".venv" / "bin"  # `make test`
NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Analysis\n", "\n", f"We analyse widgets. {PROSE}\n",
                                                             "\n", "## Loading data\n", "\n", f"Load them with pandas. {PROSE}"]},
        {"cell_type": "code", "execution_count": 1, "metadata": {},
         "outputs": [{"name": "stdout", "output_type": "stream", "text": ["an output no one wrote\n"]}],
         "source": ["import pandas as pd\n", "widgets = pd.read_csv('widgets.csv')"]},
        {"cell_type": "markdown", "metadata": {}, "source": [f"## Plotting\n\nPlot them. {PROSE}"]},
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}
JUPYTER_BOOK = {
    "_config.yml": "title: Widgets\nexclude_patterns: [README.md]\nexecute:\n  execute_notebooks: 'off'\n",
    "_toc.yml": (
        "format: jb-book\nroot: intro\nparts:\n  - caption: Basics\n    chapters:\n      - file: chapters/install\n"
        "        sections:\n          - file: chapters/Fine Tuning\n  - caption: Notebooks\n    chapters:\n"
        "      - file: chapters/analysis\n  - caption: Appendices\n    chapters:\n      - glob: appendix/*\n"
    ),
    "appendix/b-tables.md": f"# Tables\n\nThe tables. {PROSE}\n",
    "appendix/a-terms.md": f"# Terms\n\nThe terms. {PROSE}\n",
    "README.md": f"# Repository\n\nNot part of the book. {PROSE}\n",
    "intro.md": f"# Widgets\n\nWelcome to the widget book. {PROSE}\n",
    "chapters/install.md": (
        f"# Installing widgets\n\n## Before you start: `widgetd`!\n\nNeeds Python. {PROSE}\n\n"
        f"```{{note}}\nA note body. {PROSE}\n```\n\n## Before you start: `widgetd`!\n\nThe same heading twice. {PROSE}\n\n"
        f"## 1. Numbered step\n\nA number first. {PROSE}\n\n## Café déjà vu\n\nAccents. {PROSE}\n\n"
        f"::::{{tab-set}}\n:::{{tab-item}} pip\n:sync: pip\nInstall with pip. {PROSE}\n:::\n"
        f":::{{tab-item}} conda\nInstall with conda. {PROSE}\n:::\n::::\n"
    ),
    "chapters/Fine Tuning.md": f"# Fine tuning\n\n## Knobs\n\nTurn them. {PROSE}\n",
    "chapters/extra.md": f"# Extra\n\nIn no table of contents, built all the same. {PROSE}\n",
    "chapters/analysis.ipynb": json.dumps(NOTEBOOK),
}


def test_a_jupyter_book_links_to_pages_and_ids_of_its_real_build(tmp_path: Path) -> None:
    root = write_book(tmp_path / "book", JUPYTER_BOOK)
    assert isinstance(detect_layout(root), JupyterBook)
    plan = plan_book(root, "widgets")
    assert [(p.source_path, p.title, p.module, p.url) for p in plan.pages] == [
        ("intro.md", "Widgets", "", "/intro.html"),
        ("chapters/install.md", "Installing widgets", "Basics", "/chapters/install.html"),
        ("chapters/Fine Tuning.md", "Fine tuning", "Basics", "/chapters/Fine%20Tuning.html"),
        ("chapters/analysis.ipynb", "Analysis", "Notebooks", "/chapters/analysis.html"),
        ("appendix/a-terms.md", "Terms", "Appendices", "/appendix/a-terms.html"),
        ("appendix/b-tables.md", "Tables", "Appendices", "/appendix/b-tables.html"),
        ("chapters/extra.md", "Extra", "", "/chapters/extra.html"),
    ]
    assert plan.skipped_files == ["README.md"]
    subprocess.run([str(JUPYTER_BOOK_BIN / "jupyter-book"), "build", str(root)], check=True, capture_output=True)
    assert anchors_in_build(plan, root / "_build" / "html") >= 6
    text = "\n".join(c.text for c in plan.chunks)
    assert "```python\nimport pandas as pd\nwidgets = pd.read_csv('widgets.csv')\n```" in text
    assert "an output no one wrote" not in text and '"cell_type"' not in text
    assert "\nInstall with conda." in text and "sync" not in text and "tab-item" not in text  # sphinx-design tabs
    anchors = {c.url.split("#", 1)[1] for c in plan.chunks if "#" in c.url}
    assert {"before-you-start-widgetd", "id1", "numbered-step", "cafe-deja-vu", "loading-data", "plotting"} <= anchors


def test_a_notebook_that_is_not_json_is_a_clear_error(tmp_path: Path) -> None:
    root = write_book(tmp_path / "book", {**JUPYTER_BOOK, "chapters/analysis.ipynb": '{"cells": [\n'})
    with pytest.raises(IngestError, match=r"chapters/analysis.ipynb:2: not a notebook \(invalid JSON"):
        plan_book(root, "widgets")


def test_a_sphinx_project_with_notebooks_publishes_them_as_its_real_build_does(tmp_path: Path) -> None:
    root = write_book(tmp_path / "docs", {
        "conf.py": 'project = "Widgets"\nextensions = ["myst_nb"]\nnb_execution_mode = "off"\n',
        "index.md": f"# Widgets\n\nWelcome. {PROSE}\n\n```{{toctree}}\nanalysis\n```\n",
        "analysis.ipynb": json.dumps(NOTEBOOK),
    })
    plan = plan_book(root, "widgets")
    assert [(p.source_path, p.title, p.url) for p in plan.pages] == [
        ("index.md", "Widgets", "/index.html"), ("analysis.ipynb", "Analysis", "/analysis.html"),
    ]
    site = tmp_path / "site"
    subprocess.run([str(JUPYTER_BOOK_BIN / "sphinx-build"), "-b", "html", "-q", str(root), str(site)],
                   check=True, capture_output=True)
    assert anchors_in_build(plan, site) >= 2


def test_vitepress_is_found_by_its_config_folder_and_before_a_leftover_jekyll_config(tmp_path: Path) -> None:
    root = write_book(tmp_path / "docs", {
        ".vitepress/config/index.ts": "export default {}\n", "_config.yml": "title: old\n", "guide.md": "# Guide\n",
    })
    assert isinstance(detect_layout(root), VitePress)


def test_odd_configurations_and_notebooks_read_without_crashing(tmp_path: Path) -> None:
    """Values of another type than the generator documents (a name where a list or a mapping
    goes, a notebook's kernelspec as a string) are read as what they can mean."""
    jekyll = write_book(tmp_path / "jekyll", {
        "_config.yml": "collections: recipes\nexclude: vendor.md\nplugins: jekyll-optional-front-matter\n",
        "Gemfile": 'gem "jekyll"\n', "vendor.md": "# Vendored\n\nNot a page.\n",
        "page.md": f"# Page\n\nIn Ruby a hash reads {{:a => 1}}, and `{{:ok, pid}}` is Elixir. {PROSE}\n",
    })
    plan = plan_book(jekyll, "j")
    assert [p.source_path for p in plan.pages] == ["page.md"]
    assert "In Ruby a hash reads {:a => 1}, and `{:ok, pid}` is Elixir." in plan.chunks[0].text
    notebook = {"cells": [{"cell_type": "markdown", "source": None}, {"cell_type": "code", "source": "x = 1"}],
                "metadata": {"kernelspec": "python3"}}
    book = write_book(tmp_path / "book", {
        "_toc.yml": "format: jb-book\nroot: intro\n", "_config.yml": "exclude_patterns: [drafts]\n",
        "intro.ipynb": json.dumps(notebook), "drafts/x.md": "# Draft\n\nNot built.\n",
    })
    plan = plan_book(book, "b")
    assert [p.source_path for p in plan.pages] == ["intro.ipynb"] and plan.skipped_files == ["drafts/x.md"]
    assert "```\nx = 1\n```" in plan.chunks[0].text


def test_a_broken_notebook_in_a_sphinx_projects_toctree_is_a_clear_error(tmp_path: Path) -> None:
    root = write_book(tmp_path / "docs", {
        "conf.py": 'extensions = ["myst_nb"]\n', "index.md": "# W\n\n```{toctree}\nanalysis\n```\n",
        "analysis.ipynb": '{"cells": [\n',
    })
    with pytest.raises(LayoutError, match=r"analysis.ipynb:2: not a notebook"):
        plan_book(root, "widgets")


def test_a_starlight_sidebar_gives_the_order_and_groups_its_real_build_accepts() -> None:
    sidebar = (
        "sidebar: [{ label: 'Start here', items: ['guide/configure', { label: 'Moved', slug: 'elsewhere/here' }] },"
        " { label: 'Everything else', autogenerate: { directory: 'guide' } }]"
    )
    config = STARLIGHT["astro.config.mjs"].replace("title: 'Widgets' }", f"title: 'Widgets', {sidebar} }}")
    with tempfile.TemporaryDirectory(dir=GENERATORS, prefix="site-") as where:
        root = write_book(Path(where), {**STARLIGHT, "astro.config.mjs": config})
        plan = plan_book(root, "widgets")
        assert [(p.source_path, p.module) for p in plan.pages] == [
            ("src/content/docs/Guide/configure.md", "Start here"),
            ("src/content/docs/Guide/moved.md", "Start here"),
            ("src/content/docs/Guide/Getting Started.md", "Everything else"),
            ("src/content/docs/index.md", ""),
        ]
        # Starlight refuses a sidebar that names a page it does not have: the slugs are its own.
        subprocess.run([str(GENERATORS / "node_modules" / ".bin" / "astro"), "build", "--root", str(root)],
                       check=True, capture_output=True, cwd=root)
        assert anchors_in_build(plan, root / "dist") >= 5


def test_a_jupyter_book_is_not_a_jekyll_site(tmp_path: Path) -> None:
    root = write_book(tmp_path / "book", {"_config.yml": "title: Book\n", "_toc.yml": "root: intro\n", "intro.md": "# Intro\n"})
    assert not isinstance(detect_layout(root), Jekyll)


MATERIAL = {
    "mkdocs.yml": """site_name: Widgets
theme: material
markdown_extensions:
  - admonition
  - attr_list
  - pymdownx.superfences
  - pymdownx.tabbed:
      alternate_style: true
  - pymdownx.snippets
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
      emoji_generator: !!python/name:material.extensions.emoji.to_svg
""",
    "footer.md": "Shared footer text.\n",
    "docs/index.md": (
        f"# Widgets\n\n[TOC]\n\n## Install {{ #setup .big }}\n\n=== \"pip\"\n\n    ```bash\n    pip install widgets\n    ```\n\n"
        f"=== \"conda\"\n\n    Install with conda from the forge channel. {PROSE}\n\n"
        f"    !!! note \"Nested\"\n        A note inside a tab. {PROSE}\n\n"
        f"## Use\n\nAn icon :material-check: and a button [Go](#setup){{ .md-button }} here. {PROSE}\n{{ .annotate }}\n\n"
        '--8<-- "footer.md"\n'
    ),
}


def test_material_for_mkdocs_markup_is_read_as_its_page_shows_it(tmp_path: Path) -> None:
    root = write_book(tmp_path / "project", MATERIAL)
    plan = plan_book(root, "widgets")
    site = tmp_path / "site"
    mkdocs_build(root, site)
    assert anchors_in_build(plan, site) >= 2
    text = "\n".join(c.text for c in plan.chunks)
    for markup in ("===", "!!!", "[TOC]", ":material", "{", "8<", "Nested"):
        assert markup not in text, markup
    assert "Shared footer text." in text and "Shared footer text." in (site / "index.html").read_text(encoding="utf-8")
    assert "```bash\npip install widgets\n```" in text  # code, no longer indented under its tab
    assert "\nInstall with conda from the forge channel." in text and "\nA note inside a tab." in text
    assert "An icon and a button Go here." in text
    assert {c.url.split("#", 1)[1] for c in plan.chunks if "#" in c.url} >= {"setup", "use"}


SNIPPETS = {
    "mkdocs.yml": """site_name: Widgets
markdown_extensions:
  - abbr
  - pymdownx.superfences
  - pymdownx.snippets:
      base_path: [includes, examples]
      auto_append: [glossary.md]
""",
    "README.md": "Widgets turn gears into sprockets for the whole workshop, see [the gear guide][gears].\n",
    "includes/notice.md": "The notice says that every widget is tested twice.\n",
    "includes/glossary.md": "*[CLI]: Command Line Interface\n\n[gears]: https://example.com/gears\n",
    "examples/gears.py": (
        "import gears\n# --8<-- [start:spin]\ngears.spin(speed=3)\n# --8<-- [end:spin]\ngears.stop()\n"
    ),
    "docs/index.md": (
        "# Widgets\n\n--8<-- \"README.md\"\n\n## Spin\n\n```python\n--8<-- \"gears.py:spin\"\n```\n\n"
        "--8<--\nnotice.md\noutside.md\n--8<--\n\n;--8<-- \"notice.md\" is how a page includes a file.\n"
    ),
}


def test_snippet_includes_read_as_the_build_shows_them(tmp_path: Path) -> None:
    """pymdownx.snippets puts the included file in the include's place, in code too, from the
    base paths the project sets; a file outside the project folder is never read."""
    (tmp_path / "outside.md").write_text("A secret from outside the project.\n", encoding="utf-8")
    files = {**SNIPPETS, "mkdocs.yml": SNIPPETS["mkdocs.yml"].replace("[includes, examples]", "[includes, examples, ., ..]")}
    root = write_book(tmp_path / "project", files)
    site = mkdocs_build(root, tmp_path / "site")
    built = html.unescape(re.sub(r"<[^>]+>", "", (site / "index.html").read_text(encoding="utf-8")))
    assert "A secret from outside the project." in built  # what the build reads, Lectern does not
    text = "\n".join(c.text for c in plan_book(root, "widgets").chunks)
    for shown in ("sprockets for the whole workshop, see the gear guide.", "```python\ngears.spin(speed=3)\n```",
                  "every widget is tested twice", '--8<-- "notice.md" is how a page includes a file.'):
        assert shown in text, shown
        assert re.sub(r"`{3}\w*\n?", "", shown) in built, shown
    assert "gears.stop()" not in text and "secret" not in text
    assert "Command Line Interface" not in text and "Command Line Interface" not in built


def test_snippet_includes_nested_in_each_other_stop_the_ingest_at_a_bound(tmp_path: Path) -> None:
    layers = {f"docs/layer{n}.md": f'--8<-- "docs/layer{n + 1}.md"\n' * 8 for n in range(8)}
    files = {"mkdocs.yml": "site_name: Deep\nmarkdown_extensions:\n  - pymdownx.snippets\n", "docs/index.md": "# Deep\n\n--8<-- \"docs/layer0.md\"\n",
             **layers, "docs/layer8.md": f"{PROSE}\n" * 20}
    with pytest.raises(IngestError, match=r"index.md: its snippet includes \(--8<--\) read more than"):
        plan_book(write_book(tmp_path / "project", files), "deep")


ZENSICAL_TOML = """[project]
site_name = "Widgets"
docs_dir = "pages"
use_directory_urls = false
nav = [
  { "Home" = "index.md" },
  { "User Guide" = [
    { "Writing Your Docs" = "user-guide/writing.md" },
    "user-guide/configuration.md",
  ] },
  { "About" = "about.md" },
]
"""


def test_a_zensical_project_is_read_by_its_settings_as_mkdocs_reads_its_own(tmp_path: Path) -> None:
    """Zensical keeps MkDocs' settings under `[project]` in `zensical.toml` (its build is not on
    this machine's package index, so the pages are checked, not a build)."""
    pages = {f"pages/{name.removeprefix('docs/')}": text for name, text in MKDOCS.items() if name.startswith("docs/")}
    root = write_book(tmp_path / "project", {"zensical.toml": ZENSICAL_TOML, **pages, "README.md": MKDOCS["README.md"]})
    for folder in (root, root / "pages"):
        plan = plan_book(folder, "widgets")
        assert plan.layout == "mkdocs"
        assert [(p.title, p.module, p.url) for p in plan.pages] == [
            ("Widgets", "", "/index.html"),
            ("Writing your docs", "User Guide", "/user-guide/writing.html"),
            ("Configuration", "User Guide", "/user-guide/configuration.html"),
            ("About", "", "/about.html"),
        ]
    (root / "zensical.toml").write_text(
        ZENSICAL_TOML + '\n[project.markdown_extensions.pymdownx.snippets]\nbase_path = ["."]\n', encoding="utf-8"
    )
    (root / "pages" / "about.md").write_text('# About\n\n--8<-- "README.md"\n', encoding="utf-8")
    assert "Not part of the site." in "\n".join(c.text for c in plan_book(root, "widgets").chunks)
    (root / "zensical.toml").write_text("[project\nnav = [", encoding="utf-8")
    with pytest.raises(LayoutError, match="zensical.toml: cannot read"):
        plan_book(root, "widgets")


def test_a_docs_folder_given_directly_finds_mkdocs_yml_beside_it(tmp_path: Path) -> None:
    root = write_book(tmp_path / "project", MKDOCS)
    plan = plan_book(root / "docs", "widgets")
    assert plan.layout == "mkdocs"
    assert {p.url for p in plan.pages} == {"/", "/user-guide/writing/", "/user-guide/configuration/", "/about/"}
    assert re.fullmatch(r"/user-guide/writing/#file-layout-naming(_1)?",
                        next(c.url for c in plan.chunks if c.heading == "File layout & naming"))


SPHINX = {
    "docs/conf.py": (
        'import os\nproject = "Gadgets"\nroot_doc = master_doc = "start"\nextensions = ["myst_parser"]\n'
        'exclude_patterns = ["_build", "drafts"]\nhtml_theme = os.environ.get("THEME", "alabaster")\n'
    ),
    "docs/start.md": f"""# Gadgets

Gadgets measure things. {PROSE}

```python
# not a heading: a comment in an example
```

## Guides

```{{toctree}}
:maxdepth: 2

guide/install
Using gadgets <guide/usage>
```

::::{{toctree}}
---
caption: Reference
glob:
---
reference/*
https://example.com/elsewhere
::::
""",
    "docs/guide/install.md": (
        f"# Installing\n\nInstall with pip. {PROSE}\n\n## Café déjà vu: `pip install`!\n\nAccents. {PROSE}\n\n"
        f"## Straße and {{class}}`~gadgets.Gauge`\n\nLetters docutils spells out, and a role. {PROSE}\n"
    ),
    "docs/guide/usage.md": (
        f"# Usage\n\nUse them daily. {PROSE}\n\n```{{toctree}}\ntuning\n../orphan-no-more\n```\n\n"
        f"## Examples\n\nA first example. {PROSE}\n\n## Examples\n\nThe same heading again. {PROSE}\n"
    ),
    "docs/guide/tuning.md": f"# Tuning\n\nTune the gain. {PROSE}\n\n## 2 Gains and more\n\nNumbers first. {PROSE}\n",
    "docs/reference/b-config.md": f"# Configuration\n\nSettings live in a file. {PROSE}\n",
    "docs/reference/a-cli.md": f"# Command line\n\nRun `gadget`. {PROSE}\n",
    "docs/reference/deeper/c-api.md": f"# API\n\nNot matched by reference/*, in no toctree. {PROSE}\n",
    "docs/orphan-no-more.md": f"# Found\n\nListed with a ../ path. {PROSE}\n",
    "docs/orphan.md": f"# Orphan\n\nIn no toctree, built all the same. {PROSE}\n",
    "docs/drafts/wip.md": f"# Work in progress\n\nExcluded by conf.py. {PROSE}\n",
    "README.md": f"# Repository\n\nNot part of the site. {PROSE}\n",
}


def test_a_sphinx_myst_project_links_to_pages_and_anchors_of_its_real_build(tmp_path: Path) -> None:
    pytest.importorskip("myst_parser")
    root = write_book(tmp_path / "project", SPHINX)
    assert isinstance(detect_layout(root), Sphinx)
    plan = plan_book(root / "docs", "gadgets")
    assert plan.layout == "sphinx"
    pages = [(p.source_path, p.title, p.module) for p in plan.pages]
    assert pages[:7] == [
        ("start.md", "Gadgets", ""),
        ("guide/install.md", "Installing", "Guides"),
        ("guide/usage.md", "Usage", "Guides"),
        ("guide/tuning.md", "Tuning", "Guides"),
        ("orphan-no-more.md", "Found", "Guides"),
        ("reference/a-cli.md", "Command line", "Reference"),
        ("reference/b-config.md", "Configuration", "Reference"),
    ]
    assert sorted(pages[7:]) == [("orphan.md", "Orphan", ""), ("reference/deeper/c-api.md", "API", "")]
    assert plan.skipped_files == ["drafts/wip.md"]
    site = sphinx_build(root / "docs", tmp_path / "site")
    assert anchors_in_build(plan, site) >= 5  # the sections below each page's title
    anchors = {c.url.split("#", 1)[1] for c in plan.chunks if "#" in c.url}
    assert {"cafe-deja-vu-pip-install", "strasze-and-gauge", "examples", "id1", "gains-and-more"} <= anchors


SPHINX_REST = {
    "docs/conf.py": 'project = "Gauges"\nexclude_patterns = ["_build"]\n',
    "docs/index.rst": """Gauges
======

Gauges measure the pressure in pipes, tanks and tyres.

User guide
----------

.. toctree::
   :maxdepth: 2

   install
   Reading a gauge <reading>

.. toctree::
   :caption: Reference

   api
""",
    "docs/install.rst": f"""Installation
============

Install it with ``pip install gauges``. {PROSE}

.. code-block:: python

   import gauges
   gauges.connect(port=8080)

.. _calibrating:

Calibrating the dial
--------------------

Call :func:`gauges.calibrate` before the first reading, see :ref:`calibrating` and :doc:`reading`.
{PROSE}

.. versionadded:: 2.1
   Calibration remembers its offset.

Café déjà vu
------------

Accents. {PROSE}

Café déjà vu
------------

The same title again. {PROSE}
""",
    "docs/reading.rst": f"Reading\n=======\n\nRead the needle. {PROSE}\n\nAt night\n--------\n\nUse the lamp. {PROSE}\n",
    "docs/api.rst": f"API\n===\n\nThe :class:`~gauges.Gauge` class. {PROSE}\n\n.. autofunction:: gauges.read\n",
}


def test_a_sphinx_rest_project_reads_as_its_real_build(tmp_path: Path) -> None:
    """reStructuredText pages: the toctrees' order and modules, the build's URLs and section ids,
    Sphinx's roles shown as the page shows them, its directives read or left out as it does."""
    root = write_book(tmp_path / "project", SPHINX_REST)
    plan = plan_book(root / "docs", "gauges")
    assert plan.layout == "sphinx"
    assert [(p.source_path, p.title, p.module) for p in plan.pages] == [
        ("index.rst", "Gauges", ""),
        ("install.rst", "Installation", "User guide"),
        ("reading.rst", "Reading", "User guide"),
        ("api.rst", "API", "Reference"),
    ]
    site = sphinx_build(root / "docs", tmp_path / "site")
    assert anchors_in_build(plan, site) >= 4
    install = "\n".join(c.text for c in plan.chunks if c.source_path == "install.rst")
    assert "Install it with `pip install gauges`." in install
    assert "```\nimport gauges\ngauges.connect(port=8080)\n```" in install
    assert "Call `gauges.calibrate` before the first reading, see Calibrating the dial and Reading." in install
    assert "Added in version 2.1: Calibration remembers its offset." in install
    api = next(c.text for c in plan.chunks if c.source_path == "api.rst")
    assert "The `Gauge` class." in api and "autofunction" not in api and "gauges.read" not in api


OBJECTS_PAGE = f"""Padding
=======

Padding extends data to a whole number of blocks. {PROSE}

.. class:: ANSIX923(block_size)

    ANSI X9.23 padding appends zero bytes and a last byte that counts them.

    .. doctest::

        >>> padder = ANSIX923(128).padder()

    :param block_size: The size of the block in bits.

    .. method:: padder()

        Returns a padding context.

.. function:: load_pem(data)
              load_der(data)

    Loads a key.

.. option:: --strict

    Refuses bad padding.
"""


def test_the_objects_a_page_describes_read_as_its_real_build_shows_them(tmp_path: Path) -> None:
    """A library documented in its pages rather than by autodoc (pyca/cryptography's
    `.. class:: ANSIX923(block_size)`): each signature heads its description and a doctest is
    code, in the source as in the build, where they were left out with their examples."""
    book = {**SPHINX_REST, "docs/conf.py": SPHINX_REST["docs/conf.py"] + 'extensions = ["sphinx.ext.doctest"]\n',
            "docs/api.rst": OBJECTS_PAGE}
    root = write_book(tmp_path / "project", book)
    site = sphinx_build(root / "docs", tmp_path / "site")
    built = read_page((site / "api.html").read_text(encoding="utf-8"), "api.html")
    source = read_rest(OBJECTS_PAGE, "api")
    assert built is not None and source is not None
    read, shown = [(b.kind, b.text) for b in source.blocks], [(b.kind, b.text) for b in built.blocks]
    # Sphinx groups a field list under its own labels ("Parameters: block_size – …"); the source
    # is read as docutils shows it ("param block_size: …"), a difference of wording only.
    fields = read.index(("text", "param block_size: The size of the block in bits."))
    assert shown[fields] == ("text", "Parameters: block_size – The size of the block in bits.")
    assert read[:fields] + read[fields + 1:] == shown[:fields] + shown[fields + 1:]
    assert read[2] == ("text", "class ANSIX923(block_size)")
    assert read[4] == ("fence", "```pycon\n>>> padder = ANSIX923(128).padder()\n```")


MYST_OBJECTS_PAGE = f"""# Keys

Keys are loaded from the bytes of a file. {PROSE}

````{{py:function}} load_pem(data)
Loads a key from PEM data.

```pycon
>>> load_pem(b"-----BEGIN")
```
````

```{{py:class}} Fernet(key)
A symmetric token.
```

```{{option}} --strict
Refuses bad padding.
```
"""


def test_the_objects_a_myst_page_describes_read_as_its_real_build_shows_them(tmp_path: Path) -> None:
    """The same objects written as MyST directives: a signature heads its body, which is read as
    the page's own prose and code (they were left out, body and all)."""
    read, shown = myst_read_and_built(tmp_path, 'extensions = ["myst_parser"]\n', MYST_OBJECTS_PAGE)
    assert read == shown
    assert read[2:5] == [("text", "load_pem(data)"), ("text", "Loads a key from PEM data."),
                         ("fence", '```pycon\n>>> load_pem(b"-----BEGIN")\n```')]
    assert ("text", "class Fernet(key)") in read


MYST_COLON_OBJECTS_PAGE = f"""# Keys

Keys are loaded from the bytes of a file. {PROSE}

:::{{py:function}} load_pem(data, *args)
Loads a key from PEM data.
:::

:::{{py:class}} Fernet(key)
:noindex:

A symmetric token.

It signs and encrypts.
:::

:::{{note}}
Keep keys secret.
:::
"""


def test_the_objects_a_myst_page_describes_in_colon_fences_read_as_its_real_build_shows_them(tmp_path: Path) -> None:
    """MyST's colon fences (`:::{py:class} Fernet(key)`, with the colon_fence extension) that open
    a paragraph are read as its backtick fences are: the signature heads the body."""
    conf = 'extensions = ["myst_parser"]\nmyst_enable_extensions = ["colon_fence"]\n'
    read, shown = myst_read_and_built(tmp_path, conf, MYST_COLON_OBJECTS_PAGE)
    assert read == shown
    assert read[2:5] == [("text", "load_pem(data, *args)"), ("text", "Loads a key from PEM data."),
                         ("text", "class Fernet(key)")]
    unsigned = [(b.kind, b.text) for b in parse_blocks(":::{py:class}\nA token.\n:::\n", 0)]
    assert unsigned == [("text", "A token.")]  # no empty or bare "class" line


def test_a_rest_page_shows_what_it_includes_from_its_book_and_nothing_from_elsewhere(tmp_path: Path) -> None:
    """Sphinx projects pull a command's reference into its page (`.. include:: create.rst.inc`);
    a path from "/" is from the project's folder, as Sphinx reads it. A file outside the book's
    folder (a secret beside it, a system file) or hidden in it is left out, as are another
    parser, a tab width (a wide one would blow a small file up) and a page that includes too
    much (each include counted whole, whatever part of it is kept)."""
    root = write_book(tmp_path / "project", {
        "secret.txt": "The password is hunter2.",
        "docs/.env": "PASSWORD=swordfish\n",
        "docs/conf.py": 'project = "Borg"\n',
        "docs/index.rst": "Borg\n====\n\n.. toctree::\n\n   usage/create\n",
        "docs/links.inc": ".. |tool| replace:: Borg the backup tool\n",
        "docs/usage/create.rst": ".. include:: /links.inc\n\n.. include:: create.rst.inc\n\n"
        ".. include:: ../../secret.txt\n\n.. include:: /etc/hostname\n\n.. include:: ../.env\n\n"
        ".. include:: /links.inc\n   :tab-width: 3000000\n\n.. include:: /links.inc\n   :parser: rst\n\n"
        "Examples\n~~~~~~~~\n\n"
        f"Run it nightly. {PROSE}\n",
        "docs/usage/create.rst.inc": f"Create\n------\n\n|tool| makes an archive. {PROSE}\n\n.. include:: options.rst.inc\n",
        "docs/usage/options.rst.inc": f"Options\n~~~~~~~\n\nThe --stats option prints statistics. {PROSE}\n",
    })
    plan = plan_book(root / "docs", "borg")
    text = "\n".join(c.text for c in plan.chunks if c.source_path == "usage/create.rst")
    assert "Borg the backup tool makes an archive." in text and "The --stats option prints statistics." in text
    assert "Run it nightly." in text
    assert "hunter2" not in text and "swordfish" not in text and "include" not in text
    assert next(p.title for p in plan.pages if p.source_path == "usage/create.rst") == "Create"
    assert {c.section for c in plan.chunks if c.source_path == "usage/create.rst"} >= {"Options", "Examples"}

    looping = tmp_path / "looping"
    write_book(looping, {"conf.py": 'project = "L"\n', "index.rst": f"Home\n====\n\n{PROSE}\n\n.. include:: a.inc\n",
                         "a.inc": "A line.\n\n" + "".join(f".. include:: b.inc\n   :end-line: {i}\n\n" for i in range(1, 41)),
                         "b.inc": ("Bees hum. " * 10 + "\n") * 1_200})
    read = "\n".join(c.text for c in plan_book(looping, "l").chunks)
    included = rest.MAX_INCLUDED_CHARS // len(("Bees hum. " * 10 + "\n") * 1_200)  # whole files the budget holds
    assert "A line." in read and 0 < read.count("Bees hum.") <= 10 * sum(range(1, included + 1)) < 10 * sum(range(41))


def test_rest_pages_read_as_sphinx_shows_them_whatever_their_metadata_options_and_builders() -> None:
    page = read_rest(""":orphan:
:tocdepth: 2

Gauges
======

Gauges measure the pressure in pipes.

.. seealso:: The reading guide
   :class: tip

.. versionchanged:: 2.0
   :no-index:

   The dial is bigger.

.. only:: latex

   Printed books only.

.. only:: html and not epub

   Web pages only.

.. centered:: THE END

See :external+python:py:func:`print`.
""", "gauges")
    assert page is not None and page.title == "Gauges"
    assert [b.text for b in page.blocks if b.kind == "text"] == [
        "Gauges measure the pressure in pipes.", "The reading guide", "Changed in version 2.0.",
        "The dial is bigger.", "Web pages only.", "THE END", "See `print`.",
    ]


def test_a_rest_project_with_a_pdf_or_an_html_file_is_still_a_sphinx_project(tmp_path: Path) -> None:
    root = write_book(tmp_path / "p", {
        "conf.py": 'project = "P"\n', "index.rst": f"Home\n====\n\n{PROSE}\n",
        "extra/verify123.html": "<html><body><main><p>site verification page here</p></main></body></html>",
    })
    (root / "manual.pdf").write_bytes(b"%PDF-1.4 not really")
    plan = plan_book(root, "p")
    assert plan.layout == "sphinx" and [p.source_path for p in plan.pages] == ["index.rst"]


@pytest.mark.parametrize(("files", "layout"), [
    ({"a.html": "", "a.md": "", "b.html": ""}, "html"),  # built pages with their sources beside them
    ({"a.html": "", "a.md": "", "b.md": ""}, "docusaurus"),  # a source without its page: the sources
    ({"docs/a.md": "", "site/a/index.html": ""}, "docusaurus"),  # a build beside the docs is not them
], ids=["sources beside their pages", "a source without its page", "a build folder beside the docs"])
def test_a_folder_of_html_pages_is_a_built_site_when_its_markdown_only_mirrors_them(
    tmp_path: Path, files: dict[str, str], layout: str
) -> None:
    assert detect_layout(write_book(tmp_path / "site", files)).name == layout


def test_a_folder_of_rest_pages_without_its_conf_py_reads_as_sphinx_with_its_defaults(tmp_path: Path) -> None:
    """A docs folder's reST pages copied out of their project (no conf.py): the toctrees from
    `index.rst` give the order, pages link as Sphinx builds them; with markdown beside them the
    folder stays a markdown book, with HTML pages a built site."""
    root = write_book(tmp_path / "guide", {
        "index.rst": f"Gauges\n======\n\n{PROSE}\n\n.. toctree::\n   :caption: User guide\n\n   usage/reading\n   usage/install\n",
        "usage/install.rst": f"Installation\n============\n\n{PROSE}\n",
        "usage/reading.rst": f"Reading\n=======\n\nHold the dial still. {PROSE}\n",
    })
    plan = plan_book(root, "gauges")
    assert plan.layout == "sphinx"
    assert [(p.source_path, p.title, p.module) for p in plan.pages] == [
        ("index.rst", "Gauges", ""),
        ("usage/reading.rst", "Reading", "User guide"),
        ("usage/install.rst", "Installation", "User guide"),
    ]
    assert next(c.url for c in plan.chunks if c.source_path == "usage/reading.rst") == "/usage/reading.html"
    (root / "notes.md").write_text(f"# Notes\n\n{PROSE}\n", encoding="utf-8")
    assert detect_layout(root).name == "docusaurus"
    (root / "notes.md").unlink()
    (root / "usage/reading.html").write_text("<html><body><main><p>Hold the dial.</p></main></body></html>")
    assert detect_layout(root).name == "html"  # a built page beside them: the site, as before


def test_a_sphinx_conf_py_is_read_not_run(tmp_path: Path) -> None:
    """Only plain assignments are read; a conf.py that Python cannot parse is a clear error."""
    root = write_book(tmp_path / "p", {
        "conf.py": (
            'import sys\nsys.exit("ran")\nmaster_doc: str = "home"\nexclude_patterns = [x for x in "ab"]\n'
            "html_context = {[1]: 2}\n"
        ),
        "home.md": f"# Home\n\n{PROSE}\n",
    })
    layout = Sphinx(root)
    assert layout.root_doc == "home" and layout.excluded == []
    (root / "conf.py").write_text("master_doc = (\n", encoding="utf-8")
    with pytest.raises(LayoutError, match="conf.py: cannot be read"):
        Sphinx(root)


def test_plain_markdown_links_to_the_files_with_githubs_anchors(tmp_path: Path) -> None:
    root = write_book(tmp_path / "notes", {
        "guide/intro.md": f"## Getting Started\n\nFirst steps. {PROSE}\n\n## Setup & Install\n\nSteps. {PROSE}\n",
    })
    plan = plan_book(root, "notes", "https://github.com/o/r/blob/main", layout_name="plain")
    assert plan.pages[0].title == "Getting Started"
    assert [c.url for c in plan.chunks] == [
        "https://github.com/o/r/blob/main/guide/intro.md#getting-started",
        "https://github.com/o/r/blob/main/guide/intro.md#setup--install",
    ]


def test_an_index_page_overviews_the_pages_of_its_folder_and_alone_is_a_lesson(tmp_path: Path) -> None:
    """A folder's README, index or page named like its folder introduces the pages beside it
    and ranks as an overview; one that is its folder's only page (a category of one long
    page) says it all itself: a lesson."""
    root = write_book(tmp_path / "book", {
        "docs/guides/index.md": f"# Guides\n\nThe guides below. {PROSE}\n",
        "docs/guides/setup.md": f"# Setup\n\nInstall it. {PROSE}\n",
        "docs/style-guide/style-guide.md": f"# Style Guide\n\nName actions as events. {PROSE}\n",
    })
    plan = plan_book(root / "docs", "book", layout_name="docusaurus")
    kinds = {page.source_path: page.kind for page in plan.pages}
    assert kinds == {"guides/index.md": "index", "guides/setup.md": "lesson", "style-guide/style-guide.md": "lesson"}
    assert {c.kind for c in plan.chunks if c.source_path == "style-guide/style-guide.md"} == {"lesson"}
