"""Built HTML sites: real MkDocs, Sphinx and Docusaurus builds are ingested from their output
folder, and each page comes out as its own content (no navigation, headers or footers), with
its real title and module, whole code blocks and tables, and links to pages and ids the build
really has."""

import os
import re
import subprocess
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser

from ingest_scripts.html_site import read_page
from ingest_scripts.layouts import BuiltSite, detect_layout
from ingest_scripts.manual_page import manual_page_blocks
from ingest_scripts.pipeline import BookPlan, IngestError, plan_book
from tests.support.books import SAMPLE_BOOK, mkdocs_build, sphinx_build, write_book

BASE_URL = "https://docs.example.com"
PROSE = (
    "It is written out at some length so that the section makes a passage of its own here. "
    "Small sections are read together with the next one, which would hide the anchor we check, "
    "so each section holds a few sentences like these ones."
)
# What the pages of a themed site show around their content, and no passage may hold.
CHROME = (
    "Next", "Previous", "Search", "Edit on", "©", "¶", "Powered by", "Built with", "built with",
)

MKDOCS = {
    "mkdocs.yml": """site_name: Widgets Handbook
copyright: © 2024 Widget Makers
repo_url: https://github.com/example/widgets
edit_uri: edit/main/docs/
nav:
  - Home: index.md
  - 'User Guide':
      - guide/index.md
      - guide/configuration.md
  - About: about.md
markdown_extensions:
  - admonition
  - tables
  - toc:
      permalink: true
""",
    "docs/index.md": f"""# Welcome to widgets

Widgets make dashboards out of numbers. {PROSE}

## Getting started

Install the package, then start the server:

```python
import widgets

widgets.run(port=8000, debug=False)
```
""",
    "docs/guide/index.md": f"# Guide overview\n\nThe guide walks through each setting. {PROSE}\n",
    "docs/guide/configuration.md": f"""# Configuration

Settings live in one file beside the dashboards. {PROSE}

## Options

| name | default |
|---|---|
| port | 8000 |
| host | localhost |

!!! warning "Mind the theme"
    Themes may change how anchors look. {PROSE}

## Options

The same heading twice, as pages sometimes have. {PROSE}

### Deeper options

A heading nested below the repeated one. {PROSE}
""",
    "docs/about.md": f"# About the project\n\nWho makes widgets, and why. {PROSE}\n",
}

SPHINX = {
    "conf.py": 'project = "Gadget Manual"\ncopyright = "2024, Gadget Team"\n'
    'html_theme = "{theme}"\nhtml_theme_options = {{}}\n',
    "index.rst": f"""Gadget Manual
=============

Gadgets measure things around the house. {PROSE}

.. toctree::
   :caption: Contents

   intro
   guide/index
""",
    "intro.rst": f"""Introduction
============

Gadgets are small and run on batteries. {PROSE}

Setup
-----

Install it with pip. {PROSE}

::

    pip install gadget
    gadget --init --force

Options
-------

.. list-table::
   :header-rows: 1

   * - name
     - default
   * - port
     - 8000

.. note::

   Notes are prose like any other paragraph. {PROSE}

Options
-------

The same heading again, which gets an id of its own. {PROSE}
""",
    "guide/index.rst": f"""User Guide
==========

The guide explains how gadgets are wired. {PROSE}

.. toctree::

   wiring
""",
    "guide/wiring.rst": f"""Wiring
======

Connect the wires before switching on. {PROSE}

Colours
-------

Red is live and blue is neutral. {PROSE}

Details
~~~~~~~

=====  ======
wire   colour
=====  ======
live   red
=====  ======
""",
}


def built_ids(page: Path) -> set[str]:
    tree = LexborHTMLParser(page.read_text(encoding="utf-8"))
    return {node.attributes["id"] or "" for node in tree.css("[id]")}


def assert_links_are_real(plan: BookPlan, site: Path, base_url: str) -> None:
    """Every passage links to an HTML file of the build and, if anchored, to an id on it."""
    for chunk in plan.chunks:
        path, _, anchor = chunk.url.removeprefix(base_url).partition("#")
        served = site / path.lstrip("/")
        candidates = (served / "index.html", served.with_name(f"{served.name}.html"), served)
        page = next((file for file in candidates if file.is_file()), None)
        assert page is not None, chunk.url
        assert not anchor or anchor in built_ids(page), (chunk.url, sorted(built_ids(page)))


def assert_no_chrome(plan: BookPlan, *chrome: str) -> None:
    for chunk in plan.chunks:
        for text in chrome:
            assert text not in chunk.text, (text, chunk.url, chunk.text)


@pytest.mark.parametrize("theme", ["mkdocs", "readthedocs"])
def test_an_mkdocs_build_is_read_as_its_pages_say(tmp_path: Path, theme: str) -> None:
    project = write_book(tmp_path / "project", MKDOCS)
    (project / "mkdocs.yml").write_text(f"{MKDOCS['mkdocs.yml']}theme: {theme}\n", encoding="utf-8")
    site = tmp_path / "site"
    mkdocs_build(project, site)
    assert isinstance(detect_layout(site), BuiltSite)
    plan = plan_book(site, "widgets", BASE_URL)
    assert plan.layout == "html"
    assert sorted((p.source_path, p.title, p.module, p.url) for p in plan.pages) == [
        ("about/index.html", "About the project", "", f"{BASE_URL}/about/"),
        ("guide/configuration/index.html", "Configuration", "User Guide",
         f"{BASE_URL}/guide/configuration/"),
        ("guide/index.html", "Guide overview", "User Guide", f"{BASE_URL}/guide/"),
        ("index.html", "Welcome to widgets", "", f"{BASE_URL}/"),
    ]
    assert "404.html" in plan.skipped_files
    assert_no_chrome(plan, "Widgets Handbook", "Widget Makers", *CHROME)
    assert_links_are_real(plan, site, BASE_URL)
    text = "\n\n".join(c.text for c in plan.chunks)
    assert "```python\nimport widgets\n\nwidgets.run(port=8000, debug=False)\n```" in text
    assert "| name | default |\n|---|---|\n| port | 8000 |\n| host | localhost |" in text
    assert "Themes may change how anchors look." in text and "Mind the theme" not in text
    anchors = [c.anchor for c in plan.chunks if c.source_path == "guide/configuration/index.html"]
    assert anchors == ["", "options", "options_1", "deeper-options"]
    deeper = next(c for c in plan.chunks if c.anchor == "deeper-options")
    assert deeper.section == "Options › Deeper options"


@pytest.mark.parametrize("theme", ["alabaster", "classic"])
def test_a_sphinx_build_is_read_as_its_pages_say(tmp_path: Path, theme: str) -> None:
    source = write_book(tmp_path / "src", SPHINX)
    (source / "conf.py").write_text(SPHINX["conf.py"].format(theme=theme), encoding="utf-8")
    site = sphinx_build(source, tmp_path / "out")
    plan = plan_book(site, "gadgets", BASE_URL)
    assert plan.layout == "html"
    assert [(p.source_path, p.title, p.module, p.kind) for p in plan.pages] == [  # in reading order
        ("index.html", "Gadget Manual", "", "index"),
        ("intro.html", "Introduction", "", "lesson"),
        ("guide/index.html", "User Guide", "User Guide", "index"),
        ("guide/wiring.html", "Wiring", "User Guide", "lesson"),
    ]
    assert {"genindex.html", "search.html"} <= set(plan.skipped_files)
    assert_no_chrome(plan, "Gadget Manual documentation", "Gadget Team", "Navigation", *CHROME)
    assert_links_are_real(plan, site, BASE_URL)
    text = "\n\n".join(c.text for c in plan.chunks)
    assert "```\npip install gadget\ngadget --init --force\n```" in text
    assert "| name | default |\n|---|---|\n| port | 8000 |" in text
    assert "| wire | colour |\n|---|---|\n| live | red |" in text
    assert "Notes are prose like any other paragraph." in text and "\nNote\n" not in text
    assert "Contents" not in text  # the toctree is navigation
    intro = [c for c in plan.chunks if c.source_path == "intro.html"]
    assert [c.anchor for c in intro] == ["", "setup", "options", "id1"]  # Sphinx's, on <section>
    wiring = {c.section: c.url for c in plan.chunks if c.source_path == "guide/wiring.html"}
    assert wiring["Colours › Details"] == f"{BASE_URL}/guide/wiring.html#details"


DOXYGEN = {
    "Doxyfile": "PROJECT_NAME = Widgets\nPROJECT_NUMBER = 2.1\nINPUT = mainpage.md guide.md groups.dox widgets.h\n"
                "OUTPUT_DIRECTORY = out\nGENERATE_LATEX = NO\nHAVE_DOT = NO\nQUIET = YES\nWARNINGS = NO\n",
    "mainpage.md": f"""Widgets manual {{#mainpage}}
==============

Widgets turns sprockets into gadgets. {PROSE}

# Installing {{#installing}}

Run the installer with the prefix you want:

```
./configure --prefix=/opt/widgets
make install
```

The default prefix is /usr/local. {PROSE}
""",
    "guide.md": f"""Tuning the spinner {{#tuning}}
==================

The spinner turns at 40 revolutions per minute unless you say otherwise. {PROSE}

## Changing the speed {{#speed}}

Call widget_spin() with the speed you want:

~~~{{.c}}
widget_t *w = widget_open("left");
widget_spin(w, 90);
~~~

Speeds above 120 wear the bearings out. {PROSE}
""",
    "groups.dox": f"""/** @defgroup basics Basics
 *  What every user of a widget needs first. {PROSE}
 */
/** @defgroup spinning Spinning a widget
 *  @ingroup basics
 *  A widget spins as soon as it is open. {PROSE}
 */
""",
    "widgets.h": """/** @file widgets.h
 *  The widget API. */
/** An open widget. */
typedef struct widget widget_t;
/** Opens the widget named @p name.
 *  @return the widget, or NULL when no widget has that name. */
widget_t *widget_open(const char *name);
/** Spins @p w at @p rpm revolutions per minute. */
int widget_spin(widget_t *w, int rpm);
""",
}


@pytest.mark.parametrize("tree_view", ["NO", "YES"])
def test_a_doxygen_build_is_read_as_its_pages_say(tmp_path: Path, tree_view: str) -> None:
    """Doxygen titles a page with a <div>, writes a code example as a <div> per line, shows a
    tooltip on every linked name in it, lays a declaration out as a table and lists each source
    file on a page of its own."""
    project = write_book(tmp_path, DOXYGEN)
    (project / "Doxyfile").write_text(f"{DOXYGEN['Doxyfile']}GENERATE_TREEVIEW = {tree_view}\n", encoding="utf-8")
    subprocess.run(["doxygen", "Doxyfile"], cwd=project, check=True, capture_output=True)
    site = project / "out" / "html"
    plan = plan_book(site, "widgets", BASE_URL)
    assert plan.layout == "html"
    pages = {p.source_path: (p.title, p.module) for p in plan.pages}
    assert pages["index.html"] == ("Widgets manual", "")
    assert pages["tuning.html"] == ("Tuning the spinner", "")
    assert pages["group__spinning.html"] == ("Spinning a widget", "Basics")  # the group it is in
    assert_no_chrome(plan, "Generated by", "Widgets 2.1", "Definition: widgets.h", "Search")
    assert_links_are_real(plan, site, BASE_URL)
    text = "\n\n".join(c.text for c in plan.chunks)
    for tab in ("Main Page", "Related Pages"):  # the tabs; the pages they open stay
        assert tab not in "".join(c.text for c in plan.chunks if not c.text.startswith(f"# {tab}")), tab
    assert "# Tuning the spinner\n\nThe spinner turns at 40" in text
    assert "```\n./configure --prefix=/opt/widgets\nmake install\n```" in text
    assert '```\nwidget_t *w = widget_open("left");\nwidget_spin(w, 90);\n```' in text
    assert "```\nint widget_spin ( widget_t * w , int rpm )\n```\n\nSpins `w` at `rpm`" in text
    assert "|  |  |" not in text  # the spacer rows of the member tables
    assert "widgets_8h_source.html" in plan.skipped_files  # the header's listing: the code, not the book
    speed = next(c for c in plan.chunks if c.source_path == "tuning.html" and "wear the bearings" in c.text)
    assert speed.url == f"{BASE_URL}/tuning.html#speed"


def test_html_layout_can_be_forced_and_needs_html(tmp_path: Path) -> None:
    site = write_book(tmp_path / "site", {
        "index.html": f"<main><h1>Home</h1><p>Welcome to the site. {PROSE}</p></main>",
        "notes.md": "# Notes\n\nA stray markdown file makes this look like sources.\n",
    })
    assert plan_book(site, "b").layout == "docusaurus"
    plan = plan_book(site, "b", layout_name="html")
    assert [(p.title, p.url) for p in plan.pages] == [("Home", "/")]
    with pytest.raises(IngestError, match=r"no HTML \(\.html/\.htm\) files found"):
        plan_book(write_book(tmp_path / "md", {"a.md": "# A\n"}), "b", layout_name="html")


# --- pages written by hand ---------------------------------------------------------------------


def page(body: str, head: str = "") -> str:
    return f"<!doctype html><html><head>{head}</head><body>{body}</body></html>"


def test_main_content_is_found_without_any_generators_class() -> None:
    html = page(f"""
        <a class="skip" href="#main">Skip to content</a>
        <header><a href="/">Acme Docs</a><form><input placeholder="Search"></form></header>
        <div class="layout"><div class="sidebar"><ul><li><a href="/a">Alpha</a></li></ul></div>
        <main id="main"><nav class="crumbs">Home / Guide</nav>
          <h1>Installing <a class="anchor" href="#top">#</a></h1>
          <p>Install the tool with <code>pip install acme</code>, see <a href="/x">the notes</a>.
             <img src="x.png" alt="a diagram"> {PROSE}</p>
          <h2 id="verify">Verify <a href="#verify">¶</a></h2>
          <ol><li>Run it<pre><code class="language-bash">acme --version
acme check</code></pre></li><li>Read the output</li></ol>
          <button>Copy</button><footer>Was this page helpful?</footer>
        </main></div><footer>© 2024 Acme</footer>""", "<title>Installing | Acme Docs</title>")
    result = read_page(html)
    assert result is not None and result.title == "Installing"
    blocks = [(b.kind, b.text, b.anchor) for b in result.blocks]
    assert blocks == [
        ("heading", "Installing", ""),
        ("text", f"Install the tool with `pip install acme`, see the notes. {PROSE}", ""),
        ("heading", "Verify", "verify"),
        ("text", "1. Run it", ""),
        ("fence", "```bash\nacme --version\nacme check\n```", ""),
        ("text", "2. Read the output", ""),
    ]


def test_a_numbered_list_keeps_its_numbers_and_the_page_its_description() -> None:
    """A quiz continues its numbering after a heading (`<ol start=5>`), as the page shows it."""
    html = page(f"""<main><h1>Quiz</h1><p>{PROSE}</p><h2 id="part-2">Part 2</h2>
        <ol start="5"><li>What is a node?</li><li>What is a topic?</li></ol></main>""",
                '<title>Quiz</title><meta name="description" content="Check what you learned.">')
    result = read_page(html)
    assert result is not None and result.description == "Check what you learned."
    assert [b.text for b in result.blocks if b.kind == "text"][-1] == "5. What is a node?\n6. What is a topic?"


def test_list_items_that_are_only_links_are_not_passage_text() -> None:
    """As in markdown (a Sphinx toctree, a "See also" list): an item of links only goes, an
    item with words of its own stays, and the items under a link-only item are read alone."""
    html = page(f"""<main><h1>Guide</h1><p>{PROSE}</p><ul>
        <li><a href="https://example.org/a">Elsewhere</a></li>
        <li><a href="b.html">B</a>, <a href="c.html"><code>c()</code></a>
            <ul><li><a href="d.html">Deeper</a></li><li>Words of its own</li></ul></li>
        <li><a href="e.html"><code>e()</code></a>: computes e</li></ul></main>""")
    result = read_page(html)
    assert result is not None
    assert [b.text for b in result.blocks if b.kind == "text"][-1] == "  - Words of its own\n- `e()`: computes e"


def test_a_link_whose_text_is_an_address_states_it() -> None:
    """Texinfo puts a URL on a line of its own after "…is available at": the address is what
    the sentence says, not a pointer away from the page; so is an e-mail address."""
    html = page(f"""<main><h1>Bugs</h1><p>{PROSE}</p><p>The bug database is available at</p>
        <p>&nbsp; <a href="https://bugs.example.org/sbcl">https://bugs.example.org/sbcl</a></p>
        <ul><li><a href="mailto:help@example.org">help@example.org</a></li><li><a href="https://example.org/a">Elsewhere</a></li></ul>
        </main>""")
    result = read_page(html)
    assert result is not None
    assert [b.text for b in result.blocks if b.kind == "text"][-3:] == [
        "The bug database is available at", "https://bugs.example.org/sbcl", "- help@example.org"]


def test_a_definition_list_reads_each_term_with_its_definition() -> None:
    """A manual's options (DocBook's variablelist, a glossary): a term leads the first paragraph
    of its definition, as "**Term**: definition" does in markdown; the rest of the definition
    follows; a definition that opens with a list keeps its terms as a lead-in; entries grouped
    in <div>s and prose between entries are read too, permalinks are not."""
    html = page(f"""<main><h1>Sharpen</h1><p>{PROSE}</p><div class="variablelist"><dl>
        <dt><span class="term">Amount</span></dt><dd><p>Sets the strength.</p></dd>
        <dt>Threshold<a class="headerlink" href="#threshold">¶</a></dt>
        <dd><p>Sets the smallest edge.</p><p>Protects smooth areas.</p></dd>
        <dt>Mode</dt><dt>Method:</dt><dd><ul><li>Fast</li><li>Fine</li></ul></dd>
        <p>Two more options:</p>
        <div><dt>Step</dt><dd><p>1. Open the dialog.</p></dd><dd>Repeat it.</dd></div>
        </dl></div></main>""")
    result = read_page(html)
    assert result is not None
    assert [b.text for b in result.blocks if b.kind == "text"][1:] == [
        "Amount: Sets the strength.", "Threshold: Sets the smallest edge.", "Protects smooth areas.",
        "Mode, Method:", "- Fast\n- Fine", "Two more options:", "Step: 1. Open the dialog.", "Step: Repeat it.",
    ]


def test_a_definition_that_opens_with_a_figure_is_led_by_its_prose() -> None:
    """A manual's entry often shows an example image first (DocBook's figure div, HTML's
    <figure>): the term leads the prose that defines it, not the figure's title or caption,
    which are read where they stand."""
    html = page(f"""<main><h1>Layer modes</h1><p>{PROSE}</p><dl>
        <dt><span class="term">Multiply</span></dt><dd><a class="indexterm"></a>
        <div class="figure"><p class="title"><strong>Figure 8.58. Example for Multiply</strong></p>
        <div class="figure-contents"><img src="m.jpg" alt="Multiply"/></div></div><br class="figure-break"/>
        <p>Multiply mode multiplies the pixel values.</p></dd>
        <dt>Screen</dt><dd><figure><img src="s.jpg"/><figcaption>An example of Screen</figcaption></figure>
        <p>Screen mode inverts the colours.</p></dd>
        </dl></main>""")
    result = read_page(html)
    assert result is not None
    assert [b.text for b in result.blocks if b.kind == "text"][1:] == [
        "Figure 8.58. Example for Multiply", "Multiply: Multiply mode multiplies the pixel values.",
        "An example of Screen", "Screen: Screen mode inverts the colours.",
    ]


def test_a_signature_heads_its_description_without_its_links() -> None:
    """Sphinx's API entry: the signature stays a line of its own (it can be long), without its
    "[source]" and "¶" links."""
    html = page(f"""<main><h1>API</h1><p>{PROSE}</p><dl class="py function">
        <dt class="sig sig-object py" id="render"><span class="sig-name">render</span>(<em>name</em>)
        <a href="_modules/x.html"><span class="viewcode-link"><span class="pre">[source]</span></span></a>
        <a class="headerlink" href="#render">¶</a></dt><dd><p>Render a template.</p></dd></dl></main>""")
    result = read_page(html)
    assert result is not None
    assert [b.text for b in result.blocks if b.kind == "text"][1:] == ["render(name)", "Render a template."]


def test_a_texinfo_6_definition_list_is_read_as_signatures_without_an_empty_category() -> None:
    """Texinfo 6 (GNU Octave's manual) marks the list `<dl class="def">`, not its <dt>s, and
    writes an empty category as ": ": each signature is a line of its own, as Sphinx's is."""
    html = page(f"""<main><h1>Simple File I/O</h1><p>{PROSE}</p><dl class="def">
        <dt id="index-csvwrite"><span class="category">: </span><span><em></em> <strong>csvwrite</strong>
        <em>(<var>filename</var>, <var>x</var>)</em><a href="#index-csvwrite" class="copiable-anchor"> &para;</a></span></dt>
        <dt id="index-csvwrite-1"><span class="category">: </span><span><em></em> <strong>csvwrite</strong>
        <em>(<var>filename</var>, <var>x</var>, <var>opt</var>)</em></span></dt>
        <dd><p>Write the numeric matrix x to the file filename.</p></dd></dl>
        <dl><dt>Delimiter</dt><dd><p>The character that separates values.</p></dd></dl></main>""")
    result = read_page(html)
    assert result is not None
    assert [b.text for b in result.blocks if b.kind == "text"][1:] == [
        "csvwrite (filename, x)", "csvwrite (filename, x, opt)", "Write the numeric matrix x to the file filename.",
        "Delimiter: The character that separates values.",
    ]


def test_a_paragraph_of_links_only_and_a_publican_page_bar_are_not_passage_text() -> None:
    """A Publican book's page (no main landmark): a banner that only links, and the bar of
    "Prev", the book's name and "Next"; a paragraph with words of its own keeps its link."""
    html = page(f"""<div id="banner"><a href="https://example.org/get/"><span>Download the ebook</span></a></div>
        <ul class="docnav top"><li class="previous"><a href="apt.html"><strong>Prev</strong></a></li>
        <li class="home">The Handbook</li><li class="next"><a href="cache.html"><strong>Next</strong></a></li></ul>
        <div class="section"><h2>Commands</h2><p>{PROSE}</p><p>Read <a href="man.html">the manual</a> first.</p></div>""")
    result = read_page(html)
    assert result is not None
    assert [b.text for b in result.blocks if b.kind == "text"] == [PROSE, "Read the manual first."]


def test_title_without_site_name_canonical_url_and_section_anchors(tmp_path: Path) -> None:
    site = write_book(tmp_path / "site", {
        "guide/setup.html": page(
            f"""<div role="main"><section id="setup-guide"><p>Before anything else. {PROSE}</p>
            <section id="first-steps"><h2>First steps</h2><p>Open the box. {PROSE}</p></section>
            <section id="later"><h3>No id here <a name="later-on"></a></h3><p>Then. {PROSE}</p>
            </section><h2>Untitled part</h2><p>Plain heading without an id. {PROSE}</p>
            </section></div>""",
            '<title>Setup guide — Gadgets 2.0 documentation</title>'
            '<link rel="canonical" href="/en/latest/guide/setup.html">',
        ),
    })
    plan = plan_book(site, "b", "https://gadgets.example.org/docs")
    assert plan.pages[0].title == "Setup guide"
    assert plan.pages[0].url == "https://gadgets.example.org/en/latest/guide/setup.html"
    assert [(c.section, c.url.partition("#")[2]) for c in plan.chunks] == [
        ("", ""), ("First steps", "first-steps"), ("First steps › No id here", "later-on"),
        ("Untitled part", ""),
    ]


def test_a_page_without_headings_is_one_passage_under_its_title() -> None:
    html = page(f"<article><p>Just a note. {PROSE}</p></article>", "<title>Note - Site</title>")
    result = read_page(html)
    assert result is not None and result.title == "Note"
    assert [b.kind for b in result.blocks] == ["text"]


def docbook_page(title: str, up: tuple[str, str], body: str) -> str:
    """A page as DocBook's XSL stylesheets write it: no <main>, navigation tables above and below
    the content, the title as an <h2>, and <link rel=home|up> to the book and the part above."""
    navigation = (f'<table summary="Navigation"><tr><th colspan="3">{title}</th></tr><tr>'
                  '<td><a href="prev.html">&lt;&lt;&lt; Prev</a></td><th>{up}</th>'
                  '<td><a href="next.html">Next &gt;&gt;&gt;</a></td></tr></table>')
    return page(
        f'<div class="navheader">{navigation.replace("{up}", up[1])}</div>'
        f'<div class="sect1"><div class="titlepage"><h2 class="title"><a name="top"></a>{title}</h2>'
        f'</div>{body}</div><div class="navfooter">{navigation.replace("{up}", up[1])}</div>',
        f'<title>{title}</title><link rel="home" href="index.html" title="The Ledger Guide">'
        f'<link rel="up" href="{up[0]}" title="{up[1]}">',
    )


def test_a_docbook_site_is_read_by_its_outline_links(tmp_path: Path) -> None:
    """Its module is the part its rel=up link names (none for a part of the home page), its
    <h2> title is no section, its navigation tables and HTML 4 inline elements are no text, and
    an admonition laid out as a table is its text."""
    site = write_book(tmp_path / "site", {
        "chapter_invest.html": docbook_page("Chapter 9. Investments", ("index.html", "The Ledger Guide"),
            f"<p>Keep a <acronym>CD</acronym> in an asset account. {PROSE}</p>"),
        "invest-split.html": docbook_page("9.10. Splits", ("chapter_invest.html", "Chapter 9. Investments"),
            f'<p>Companies split their stock. {PROSE}</p><div class="sect2"><h3 class="title">'
            f'<a name="simple"></a>9.10.1. Simple Stock Split</h3><p>Select Actions. {PROSE}</p>'
            '<div class="note"><table border="0"><tr><td rowspan="2"><img src="note.png"></td>'
            '<th>Note</th></tr><tr><td><p>Back up the book first.</p></td></tr></table></div></div>'),
    })
    plan = plan_book(site, "b", "https://ledger.example.org")
    assert [(p.title, p.module) for p in plan.pages] == [
        ("Chapter 9. Investments", ""), ("9.10. Splits", "Chapter 9. Investments"),
    ]
    assert [(c.section, c.url.partition("#")[2]) for c in plan.chunks] == [
        ("", ""), ("", ""), ("9.10.1. Simple Stock Split", "simple"),
    ]
    assert plan.chunks[0].text.splitlines()[-1] == f"Keep a CD in an asset account. {PROSE}"
    assert not any(word in chunk.text for chunk in plan.chunks for word in ("Prev", "Next", "|"))
    assert plan.chunks[-1].text.endswith(f"Select Actions. {PROSE}\n\nBack up the book first.")


def test_a_chapter_opening_with_an_h2_that_says_its_title_is_titled_by_it() -> None:
    """mdBook chapters often open with `##`; the <title> the sidebar gave may differ in case."""
    html = page(f'<main><h2 id="what-is-ownership">What Is Ownership?</h2><p>Rules. {PROSE}</p>'
                f'<h2 id="rules">Ownership Rules</h2><p>Each value has an owner. {PROSE}</p></main>',
                "<title>What is Ownership? - The Rust Programming Language</title>")
    result = read_page(html)
    assert result is not None and result.title == "What is Ownership?"
    assert [(b.level, b.text) for b in result.blocks if b.kind == "heading"] == [
        (1, "What Is Ownership?"), (2, "Ownership Rules"),
    ]


@pytest.mark.parametrize(("body", "title", "sections"), [
    (  # SQLite's hand-made pages: every numbered section an <h1>, under a styled title that is no heading
        ('<div class="fancy_title">Write-Ahead Logging</div>'
         f'<h1 id="overview"><span>1. </span>Overview</h1><p>WAL is a journal mode. {PROSE}</p>'
         f'<h1 id="how_it_works"><span>2. </span>How WAL Works</h1><p>Changes go to a log. {PROSE}</p>'
         f'<h2 id="checkpointing"><span>2.1. </span>Checkpointing</h2><p>The log is copied back. {PROSE}</p>'),
        "Write-Ahead Logging",
        [("1. Overview", "overview"), ("2. How WAL Works", "how_it_works"),
         ("2. How WAL Works › 2.1. Checkpointing", "checkpointing")],
    ),
    (  # the page's own <h1> title, and a second <h1> later
        (f'<article><header><h1 id="widgets">Installing Widgets</h1></header><p>Get the box. {PROSE}</p>'
         f'<h2 id="pip">With pip</h2><p>Run pip. {PROSE}</p>'
         f'<h1 id="other">Other Platforms</h1><p>Elsewhere too. {PROSE}</p></article>'),
        "Installing Widgets",
        [("", ""), ("With pip", "pip"), ("Other Platforms", "other")],
    ),
], ids=["sections as h1s", "a second h1 after the title"])
def test_a_page_of_several_h1s_is_titled_by_its_title_and_cites_each_section(
    tmp_path: Path, body: str, title: str, sections: list[tuple[str, str]]
) -> None:
    site = write_book(tmp_path / "site", {"page.html": page(body, f"<title>{title} — Docs</title>")})
    plan = plan_book(site, "b", "https://docs.example.org")
    assert [p.title for p in plan.pages] == [title]
    assert [(c.section, c.url.partition("#")[2]) for c in plan.chunks] == sections


def test_a_built_site_with_its_pages_sources_beside_them_and_a_single_page_edition(tmp_path: Path) -> None:
    """Node.js's API docs: each page's markdown source beside its HTML (the HTML is what readers
    read), every page's banner an <h1> of the site's name, and `all.html` holding every page:
    the single-page edition is left out and nothing it says is lost."""
    def module(name: str, sentences: list[str]) -> str:
        prose = " ".join(sentences)
        return page(f'<header><h1>Node.js v18 documentation</h1></header><main><h2 id="{name.lower()}">{name}</h2>'
                    f"<p>{prose}</p></main>", f"<title>{name} | Node.js v18 Documentation</title>")
    readline = [f"The readline module reads a stream one line at a time, step {i} of the tour." for i in range(8)]
    timers = [f"The timers module schedules a function to run later, example {i} of the tour." for i in range(8)]
    site = write_book(tmp_path / "api", {
        "readline.html": module("Readline", readline),
        "readline.md": "# Readline\n\nThe source of the page.\n",
        "timers.html": module("Timers", timers),
        "timers.md": "# Timers\n\nThe source of the page.\n",
        "all.html": module("All", readline + timers),
    })
    plan = plan_book(site, "node", "https://nodejs.example.org/api")
    assert plan.layout == "html"
    assert sorted((p.source_path, p.title) for p in plan.pages) == [("readline.html", "Readline"), ("timers.html", "Timers")]
    assert plan.skipped_files == ["all.html"]
    assert all("Node.js v18 documentation" not in c.text for c in plan.chunks)


def test_pages_are_read_in_the_order_their_next_links_chain_them(tmp_path: Path) -> None:
    """rel=next links give the reading order, through pages that are not content (a part's
    table of contents) and whatever their file names; a page no chain reaches comes last."""
    def chapter(title: str, following: str) -> str:
        return page(f'<main><h1>{title}</h1><p>{title} begins. {PROSE}</p>'
                    f'<nav><a rel="next" href="{following}">Next</a></nav></main>')
    site = write_book(tmp_path / "book", {
        "index.html": chapter("Welcome", "zebra.html"),
        "zebra.html": chapter("Zebras", "part2/index.html"),
        "part2/index.html": page("<main><h1>Part two</h1><ul><li><a href='../apes.html'>Apes</a></li>"
                                 "</ul><a rel='next' href='../apes.html'>Next</a></main>"),
        "apes.html": chapter("Apes", "#top"),  # a link within the page leads nowhere else
        "lost.html": chapter("Lost", ""),
    })
    plan = plan_book(site, "b")
    assert [p.title for p in plan.pages] == ["Welcome", "Zebras", "Apes", "Lost"]
    assert plan.skipped_files == ["part2/index.html"]
    # A last page that leads back to the first makes a loop: it is read from the home page.
    (site / "apes.html").write_text(chapter("Apes", "index.html"), encoding="utf-8")
    assert [p.title for p in plan_book(site, "b").pages] == ["Welcome", "Zebras", "Apes", "Lost"]


def test_a_page_that_names_itself_nowhere_is_named_by_its_first_heading_else_its_file(tmp_path: Path) -> None:
    site = write_book(tmp_path / "site", {
        "reader.html": f"<html><body><h2>Parsing documents</h2><p>Call parse. {PROSE}</p></body></html>",
        "char_reader.html": f"<html><body><p>Reads characters one by one. {PROSE}</p></body></html>",
    })
    assert sorted(p.title for p in plan_book(site, "b").pages) == ["Char reader", "Parsing documents"]


def test_only_a_sectioning_division_lends_its_id_to_the_heading_it_opens() -> None:
    html = page(f'<div id="layout-wrapper"><h2>Setup</h2><p>Plug it in. {PROSE}</p>'
                f'<div class="section" id="Wiring"><h3>Wiring</h3><p>Red to red. {PROSE}</p></div></div>')
    result = read_page(html)
    assert result is not None
    assert [(b.text, b.anchor) for b in result.blocks if b.kind == "heading"] == [("Setup", ""), ("Wiring", "Wiring")]


def test_a_texinfo_manual_is_read_without_its_navigation_and_with_its_node_anchors() -> None:
    """makeinfo's HTML (GNU and R manuals): each node a <div class="section" id="Node"> whose
    "Next: …, Up: …" header, menu and index are navigation."""
    nav = ('<div class="header"><p>Next: <a href="#Lists" rel="next">Lists</a>, Up: '
           '<a href="#Objects" rel="up">Objects</a> &nbsp; [<a href="#SEC_Contents">Contents</a>]'
           '[<a href="#Index">Index</a>]</p></div>')
    html = page(f"""<h1 class="settitle">R Language</h1>
        <div class="contents"><h2 class="contents-heading">Table of Contents</h2>
        <ul><li><a href="#Objects">2 Objects</a></li></ul></div>
        <div class="chapter" id="Objects">{nav}<span id="Objects-1"></span><h2 class="chapter">2 Objects</h2>
        <p>Everything in R is an object. {PROSE}</p>
        <ul class="section-toc"><li><a href="#Vectors">Vectors</a></li></ul>
        <div class="section" id="Vectors">{nav}<span id="Vectors-1"></span><h3 class="section">2.1 Vectors</h3>
        <p>Vectors hold values of one type. {PROSE}</p></div></div>
        <div class="unnumbered" id="Index">{nav}<h2 class="unnumbered">Index</h2>
        <table class="index-cp"><tr><td><a href="#Vectors">vector</a></td><td>Vectors</td></tr></table>
        </div>""", "<title>R Language</title>")
    result = read_page(html)
    assert result is not None
    assert [(b.kind, b.text, b.anchor) for b in result.blocks if b.text != "Table of Contents"] == [
        ("heading", "R Language", ""),
        ("heading", "2 Objects", "Objects"),
        ("text", f"Everything in R is an object. {PROSE}", ""),
        ("heading", "2.1 Vectors", "Vectors"),
        ("text", f"Vectors hold values of one type. {PROSE}", ""),
        ("heading", "Index", "Index"),
    ]


@pytest.mark.parametrize("html", [
    page("<main><h1>Page Not Found</h1><p>We could not find what you were looking for.</p></main>"),
    page("<main><h1>Index</h1><h2>A</h2><ul><li><a href='/a'>alpha</a></li></ul></main>"),
    page("<main><h1>Tagged chat</h1><article><a href='/docs/a'><h2>Asking</h2></a>"
         f"<p>{PROSE}</p></article></main>"),
    # a page moved, or Texinfo's pointer to a function's node: the content is where it leads
    page(f"<p>The node you are looking for is at <a href='Arith.html#XREFabs'>XREFabs</a>. {PROSE}</p>",
         '<meta http-equiv="Refresh" content="0; url=Arith.html#XREFabs">'),
    page(f"<main><h1>Redirect</h1><p>Redirect to ./cli.html. {PROSE}</p></main>",
         '<meta http-equiv="refresh" content="0; ./cli.html">'),
    page(f"<main><h1>Moved</h1><p>{PROSE}</p></main>", '<meta http-equiv="refresh" content="0,URL=\'new.html\'">'),
    # Sphinx's general index: a few words of its own among hundreds of links
    page("<main><h1>Index – A</h1><table class='indextable'><tr><td><ul>" + "".join(
        f"<li>{name}<ul>" + "".join(
            f"<li><a href='library/{name}.html#{name}.{n}'>{name}.item{n}() (in module {name})</a></li>" for n in range(8)
        ) + "</ul></li>"
        for name in ("abc", "argparse", "array", "ast", "asyncio", "atexit")
    ) + "</ul></td></tr></table></main>"),
    # a frameset (FontForge's old pages): no body, its frames are pages of their own
    ("<HTML><HEAD><TITLE>Glossary</TITLE></HEAD><FRAMESET COLS='130,*'><FRAME SRC='GlossaryNav.html'>"
     "<FRAME SRC='Glossary.html' NAME='main'></FRAMESET></HTML>"),
], ids=["not found", "index of links", "listing", "redirect", "redirect without url=", "redirect after a comma",
        "general index", "frameset"])
def test_pages_that_are_not_content_are_skipped(html: str) -> None:
    assert read_page(html) is None


def test_a_page_whose_titles_link_to_itself_is_content() -> None:
    """xfpt (Exim's specification) links each chapter's title to the chapter's own page."""
    chapter = page(f"<h2><a href='ch-events.html'>Chapter 61 - Events</a></h2><p>{PROSE}</p>")
    assert read_page(chapter, "ch-events.html") is not None
    assert read_page(chapter, "ch-other.html") is None  # as a listing of another page


def test_a_page_whose_titles_link_to_their_lines_in_a_table_of_contents_is_content() -> None:
    """LinuxDoc (BIRD's User's Guide) links each section's title back to its entry in the guide's
    contents page: a chapter, not a listing of other pages."""
    chapter = page("<h2><a name='s3'>3.</a> <a href='bird.html#toc3'>Configuration</a></h2>"
                   "<h2><a name='ss3.1'>3.1</a> <a href='bird.html#toc3.1'>Introduction</a></h2>"
                   f"<p>BIRD is configured using a text configuration file. {PROSE}</p>")
    read = read_page(chapter, "bird-3.html")
    assert read is not None and "BIRD is configured using a text configuration file." in "\n".join(b.text for b in read.blocks)


def test_a_page_that_only_reloads_itself_is_content() -> None:
    reloading = page(f"<main><h1>Build Status</h1><p>{PROSE}</p></main>", '<meta http-equiv="refresh" content="300">')
    assert read_page(reloading) is not None
    to_its_top = page(f"<main><h1>Build Status</h1><p>{PROSE}</p></main>", '<meta http-equiv="refresh" content="60; url=#top">')
    assert read_page(to_its_top) is not None


def test_the_site_name_most_titles_give_names_the_book_and_leaves_the_titles(tmp_path: Path) -> None:
    """Texinfo titles a node's page "Node (Manual)"; a page's own brackets stay."""
    manual = "(GNU Octave (version 7.3.0))"
    nodes = {"sets.html": "Sets", "ranges.html": "Ranges", "windows.html": "Installing (Windows)"}
    site = write_book(tmp_path / "manual", {
        rel: page(f"<h2>{title}</h2><p>{title} are described here. {PROSE}</p>", f"<title>{title} {manual}</title>")
        for rel, title in nodes.items()
    } | {"lone.html": page(f"<h2>Lone</h2><p>{PROSE}</p>", "<title>Lone (a page of its own)</title>")})
    plan = plan_book(site, "b", "https://example.org")
    assert sorted(p.title for p in plan.pages) == ["Installing (Windows)", "Lone (a page of its own)", "Ranges", "Sets"]
    # The name heads every passage as the book's, as the title did; the first heading, which
    # now says the title, is the title, not a section.
    assert {c.book_name for c in plan.chunks} == {"GNU Octave (version 7.3.0)"}
    assert {c.header for c in plan.chunks if c.source_path == "sets.html"} == {"b › GNU Octave (version 7.3.0) › Sets"}
    # A name most titles give after a separator is the site's too.
    site = write_book(tmp_path / "api", {
        f"{name}.html": page(f"<h1>{name.title()}</h1><p>The {name} module. {PROSE}</p>",
                             f"<title>{name.title()} | Node.js v18.20.4 Documentation</title>")
        for name in ("assert", "buffer", "crypto")
    })
    plan = plan_book(site, "b", "https://example.org")
    assert {c.book_name for c in plan.chunks} == {"Node.js v18.20.4 Documentation"}
    assert sorted(p.title for p in plan.pages) == ["Assert", "Buffer", "Crypto"]
    # Two titles of four sharing an ending is not most of them; the group that ends a title is
    # one bracket's, "(GNU)", not "(b) c (GNU)".
    site = write_book(tmp_path / "two", {
        "a.html": page(f"<p>{PROSE}</p>", "<title>Alpha (draft)</title>"),
        "b.html": page(f"<p>{PROSE} Beta.</p>", "<title>Beta (draft)</title>"),
        "c.html": page(f"<p>{PROSE} Gamma.</p>", "<title>Gamma (b) c (GNU)</title>"),
        "d.html": page(f"<p>{PROSE} Delta.</p>", "<title>Delta (a) c (GNU)</title>"),
    })
    plan = plan_book(site, "b", "https://example.org")
    assert sorted(p.title for p in plan.pages) == ["Alpha (draft)", "Beta (draft)", "Delta (a) c (GNU)", "Gamma (b) c (GNU)"]
    assert {c.book_name for c in plan.chunks} == {""}


def test_a_manual_named_before_each_page_and_its_navigation_bar_of_images(tmp_path: Path) -> None:
    """Hyperlatex titles a page "Manual -- Page" and lays out its previous / up / next buttons
    as a one-row table of linked images beside the page's title, above and below the text."""
    def bar(title: str, *links: tuple[str, str]) -> str:
        buttons = "".join(f'<td><a href="{href}"><img alt="{alt}" src="next.png"></a></td>' for href, alt in links)
        return f'<table><tr>{buttons}<td><img alt="" src="blank.png"></td><td><b>{title}</b></td></tr></table>'

    def chapter(title: str, text: str, *links: tuple[str, str]) -> str:
        return page(f"{bar(title, *links)}<h4>{title}</h4><p>{text} {PROSE}</p>{bar(title, *links)}",
                    f"<title>Dr. Geo User's Manual -- {title}</title>")

    site = write_book(tmp_path / "manual", {
        "ray.html": chapter("Ray", "Create a ray defined by two points.", ("segment.html", "Segment"), ("lines.html", "Line Tools")),
        "segment.html": chapter("Segment", "Create a segment.", ("ray.html", "Ray"), ("lines.html", "Line Tools")),
        "length.html": chapter("Distance, Length & Number of Anything Measured", "Create a numeric value.",
                               ("angle.html", "Angle"), ("numbers.html", "Numbers")),
        # A tool group's page: its title and links to its tools, and nothing of its own.
        "lines.html": page(f'{bar("Line Tools", ("ray.html", "Ray"))}<h2>Line Tools</h2>'
                           '<ul><li><a href="ray.html">Ray</a></li><li><a href="segment.html">Segment</a></li></ul>',
                           "<title>Dr. Geo User's Manual -- Line Tools</title>"),
        # A title that does not open with the manual's name is the page's whole.
        "news.html": page(f"<p>{PROSE}</p>", "<title>Dr. Geo 1.5 -- What's New</title>"),
        # One-row tables of the page's own, no navigation: they stay.
        "keys.html": page(f'<h4>Keys</h4><p>{PROSE}</p><table><tr><td>Ctrl+Z</td><td>undo the last step</td></tr></table>'
                          '<table><tr><td><a href="undo.html">Undo</a></td><td>takes back a step</td></tr></table>',
                          "<title>Dr. Geo User's Manual -- Keys</title>"),
    })
    plan = plan_book(site, "b", "https://example.org")
    assert sorted(p.title for p in plan.pages) == [
        "Distance, Length & Number of Anything Measured", "Dr. Geo 1.5 -- What's New", "Keys", "Ray", "Segment"]
    assert {c.book_name for c in plan.chunks} == {"Dr. Geo User's Manual"}
    assert {c.header for c in plan.chunks if c.source_path == "ray.html"} == {"b › Dr. Geo User's Manual › Ray"}
    texts = {c.source_path: c.text for c in plan.chunks}
    assert texts["ray.html"].startswith("# Ray\n\nCreate a ray defined by two points.")
    assert not any("|" in texts[rel] for rel in ("ray.html", "segment.html", "length.html"))
    assert "| Ctrl+Z | undo the last step |" in texts["keys.html"] and "| Undo | takes back a step |" in texts["keys.html"]


def test_sitemap_gives_urls_and_a_copy_or_a_stub_of_a_page_is_read_once(tmp_path: Path) -> None:
    chapter = page(f"<main><h1>Foreword</h1><p>Why this book exists. {PROSE}</p></main>")
    site = write_book(tmp_path / "book", {
        "foreword.html": chapter,
        "index.html": chapter,  # mdBook copies the first chapter to index.html
        "part/ch1.html": page(f"<main><h1>Chapter one</h1><p>It begins. {PROSE}</p></main>"),
        # stubs left where an old edition's chapters were: the same text under each title
        **{f"old/ch{n}.html": page(f"<main><h2>Chapter {n}</h2><p>This edition is no longer "
                                   "distributed; read the current one instead.</p></main>") for n in (1, 2)},
        "sitemap.xml": '<?xml version="1.0"?>'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<url><loc>https://example.org/book/foreword</loc></url>"
        "<url><loc>https://example.org/book/part/ch1</loc></url></urlset>",
    })
    plan = plan_book(site, "b", "https://elsewhere.example")
    assert [(p.source_path, p.url) for p in plan.pages] == [
        ("foreword.html", "https://example.org/book/foreword"),
        ("old/ch1.html", "https://elsewhere.example/old/ch1.html"),
        ("part/ch1.html", "https://example.org/book/part/ch1"),
    ]
    assert plan.skipped_files == ["index.html", "old/ch2.html"]


def test_the_text_most_pages_of_a_site_hold_word_for_word_is_its_template(tmp_path: Path) -> None:
    """A banner, a notice or a footer the site's template repeats says nothing about any page."""
    def chapter(title: str, own: str, shared_with_half: str = "") -> str:
        return page(f"<main><p>Acme Manual 2.4</p><h1>{title}</h1><p>{own} {PROSE}</p>{shared_with_half}"
                    f"<h2>Notes</h2><p>{title} has notes of its own. {PROSE}</p><p>Please answer our user survey.</p></main>")
    half = f"<p>The default port is 8080. {PROSE}</p>"
    site = write_book(tmp_path / "manual", {
        "install.html": chapter("Install", "Unpack the archive.", half),
        "serve.html": chapter("Serve", "Start the server.", half),
        "tune.html": chapter("Tune", "Raise the worker count."),
        "faq.html": page(f"<main><h1>FAQ</h1><p>Ask on the list. {PROSE}</p></main>"),
    })
    plan = plan_book(site, "acme")
    text = {p.source_path: "\n".join(c.text for c in plan.chunks if c.source_path == p.source_path) for p in plan.pages}
    assert not any("Acme Manual 2.4" in t or "survey" in t for t in text.values())  # 3 pages of 4
    assert "The default port is 8080." in text["install.html"]  # half the pages only
    assert "## Notes" in text["tune.html"]  # a heading is the page's outline, not a banner
    # Two pages are too few to tell a template from what two pages happen to share.
    site = write_book(tmp_path / "pair", {"a.html": chapter("A", "Alpha."), "b.html": chapter("B", "Beta.")})
    assert "Acme Manual 2.4" in "\n".join(c.text for c in plan_book(site, "pair").chunks if c.source_path == "a.html")


def test_a_scribble_page_is_its_main_column_and_its_examples_are_code() -> None:
    """Racket's manuals: the table of contents is a <div> beside the main column, the previous /
    up / next bar is inside it, and an example is a table of lines, an expression's lines a table
    in a row of it (as `raco scribble` 8.7 writes them)."""
    nbsp = "&nbsp;"
    html = page(
        "<div class='tocset'><div class='tocview'><table><tr><td>1</td><td><a href='intro.html'>Welcome to "
        "Racket</a></td></tr><tr><td>2</td><td><a href='to-scheme.html'>Racket Essentials</a></td></tr>"
        "</table></div></div>"
        "<div class='maincolumn'><div class='main'><div class='navsettop'><span class='navleft'><form>"
        "<input class='searchbox'></form> <a href='../index.html'>top</a></span><span class='navright'>"
        "<a href='keywords.html'>&larr; prev</a> <a href='datatypes.html'>up</a></span></div>"
        f"<h4>3.8<tt>{nbsp}</tt><a name='(part._pairs)'></a>Pairs and Lists</h4><p>A pair joins two arbitrary "
        f"values. {PROSE}</p><p><div class='SIntrapara'>Examples:</div><div class='SIntrapara'>"
        "<blockquote class='SCodeFlow'><table class='RktBlk'>"
        f"<tr><td><table class='RktBlk'><tr><td>&gt; (map{nbsp}(lambda{nbsp}(i){nbsp}(/{nbsp}1{nbsp}i))</td></tr>"
        f"<tr><td>{nbsp * 7}'(1{nbsp}2{nbsp}3))</td></tr></table></td></tr>"
        "<tr><td><p>'(1 1/2 1/3)</p></td></tr>"
        "<tr><td>&gt; (pair? '())</td></tr><tr><td><p>#f</p></td></tr>"
        "</table></blockquote></div></p>"
        "<div class='navsetbottom'><a href='vectors.html'>next &rarr;</a></div></div></div>"
    )
    result = read_page(html)
    assert result is not None
    assert [(b.kind, b.text) for b in result.blocks] == [
        ("heading", "3.8 Pairs and Lists"),
        ("text", f"A pair joins two arbitrary values. {PROSE}"),
        ("text", "Examples:"),
        ("fence", "```\n> (map (lambda (i) (/ 1 i))\n       '(1 2 3))\n'(1 1/2 1/3)\n> (pair? '())\n#f\n```"),
    ]


def test_a_page_that_asks_not_to_be_indexed_is_read_when_the_book_links_to_it(tmp_path: Path) -> None:
    """ikiwiki marks the pages it brings from its underlay `noindex` (the directives' reference),
    though the wiki's own pages lead there; mdBook's old-edition stubs, kept for outside links,
    are marked so and reached by none."""
    noindex = '<meta name="robots" content="noindex,follow">'
    site = write_book(tmp_path / "wiki", {
        "index.html": page(f"<main><h1>Welcome</h1><p>Pages are written in markdown. {PROSE}</p></main>"),
        "plugins/img.html": page("<main><h1>img</h1><p>This plugin scales images: see the "
                                 f"<a href='../directive/img.html'>img directive</a>. {PROSE}</p></main>"),
        "directive/img.html": page(f"<main><h1>img</h1><p>The size parameter scales the image. {PROSE}</p>"
                                   "<p><a href='map.html'>map</a></p></main>", noindex),
        "directive/map.html": page(f"<main><h1>map</h1><p>A map of pages, as a tree. {PROSE}</p></main>", noindex),
        "testing.html": page(f"<main><h1>Testing</h1><p>This is an old link. {PROSE}</p></main>", noindex),
        # a link that is no URL leads nowhere (Vim's help links its own notation)
        "netrw.html": page(f"<main><h1>netrw</h1><p>Read <a href='ftp://[user@]host/path'>ftp://[user@]host/path</a>"
                           f". {PROSE}</p></main>"),
    })
    plan = plan_book(site, "wiki")
    assert sorted(p.source_path for p in plan.pages) == ["directive/img.html", "index.html", "netrw.html",
                                                         "plugins/img.html"]
    assert sorted(plan.skipped_files) == ["directive/map.html", "testing.html"]


# --- Docusaurus --------------------------------------------------------------------------------


EXAMPLE = Path(__file__).resolve().parents[2] / "docs_site_plugin" / "example"


@pytest.mark.e2e
def test_a_docusaurus_build_reads_like_its_markdown(tmp_path: Path) -> None:
    """The example site built over the sample book: the same pages, titles, modules, sections
    and anchors as ingesting the markdown, and the same code blocks and tables."""
    if not (EXAMPLE / "node_modules").exists():
        pytest.fail("the example site's npm packages are missing: `make test` installs them")
    site = tmp_path / "build"
    build = subprocess.run(
        ["npx", "docusaurus", "build", "--out-dir", str(site)],
        cwd=EXAMPLE, env=os.environ | {"LECTERN_DOCS_PATH": str(SAMPLE_BOOK)},
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert build.returncode == 0, build.stderr[-3000:] or build.stdout[-3000:]
    origin = "http://127.0.0.1:3000"  # the site's url: its canonical links use it
    plan = plan_book(site, "guide")
    markdown = plan_book(SAMPLE_BOOK, "guide", origin)
    assert sorted((p.url, p.title, p.module, p.kind) for p in plan.pages) == sorted(
        (p.url, p.title, p.module, p.kind) for p in markdown.pages
    )
    assert "404.html" in plan.skipped_files and "docs/tags/index.html" in plan.skipped_files
    assert [(c.url, c.section) for c in sorted(plan.chunks, key=lambda c: (c.url, c.position))] == [
        (c.url, c.section) for c in sorted(markdown.chunks, key=lambda c: (c.url, c.position))
    ]
    # the book itself says "Search is temporarily unavailable"
    assert_no_chrome(plan, "Lectern example", "Skip to main content", "On this page", "Tags:",
                     "Next", "Previous", "Edit this page", "©", "\u200b")
    assert_links_are_real(plan, site, origin)
    html_text, markdown_text = (
        "\n\n".join(c.text for c in p.chunks) for p in (plan, markdown)
    )
    fence = re.compile(r"^```.*?^```$", re.MULTILINE | re.DOTALL)
    assert sorted(fence.findall(html_text)) == sorted(fence.findall(markdown_text)) != []
    tables = re.compile(r"^\|.*\|$(?:\n^\|.*\|$)+", re.MULTILINE)
    rule = re.compile(r"^\|[-|: ]+\|$", re.MULTILINE)
    assert [rule.sub("|---|", t) for t in tables.findall(html_text)] != []
    assert sorted(" ".join(rule.sub("", t).split()) for t in tables.findall(html_text)) == sorted(
        " ".join(rule.sub("", t).replace("**", "").split()) for t in tables.findall(markdown_text)
    )


FOOTNOTED = """# Frozen Classes

## Immutability

attrs classes can be immutable[^immutable] by default. {prose}

[^immutable]: Assigning to an attribute of a frozen instance raises FrozenInstanceError.
"""


def test_footnote_markers_and_back_links_are_not_passage_text(tmp_path: Path) -> None:
    """A real MkDocs build with its footnotes extension, and a Docusaurus (remark-gfm) page: the
    marker is a superscript number and the note links back with "↩"; the note's text is kept."""
    project = write_book(tmp_path / "project", {
        "mkdocs.yml": "site_name: Attrs\nmarkdown_extensions:\n  - footnotes\nnav:\n  - index.md\n",
        "docs/index.md": FOOTNOTED.format(prose=PROSE),
    })
    built = tmp_path / "site"
    mkdocs_build(project, built)
    docusaurus = page(f"""<main><div class="theme-doc-markdown markdown"><header><h1>Frozen Classes</h1></header>
        <h2 id="immutability">Immutability</h2><p>attrs classes can be immutable<sup><a href="#user-content-fn-immutable"
        id="user-content-fnref-immutable" data-footnote-ref="true" aria-describedby="footnote-label">1</a></sup> by
        default. {PROSE}</p><section data-footnotes="true" class="footnotes"><h2 class="sr-only" id="footnote-label">Footnotes</h2>
        <ol><li id="user-content-fn-immutable"><p>Assigning to an attribute of a frozen instance raises FrozenInstanceError.
        <a href="#user-content-fnref-immutable" data-footnote-backref="" aria-label="Back to reference 1"
        class="data-footnote-backref">↩</a></p></li></ol></section></div></main>""")
    for html in ((built / "index.html").read_text(encoding="utf-8"), docusaurus):
        result = read_page(html)
        assert result is not None
        texts = [block.text for block in result.blocks if block.kind == "text"]
        assert texts[0] == f"attrs classes can be immutable by default. {PROSE}"
        assert any(text.endswith("Assigning to an attribute of a frozen instance raises FrozenInstanceError.")
                   for text in texts[1:]), texts
        assert not any("↩" in text for text in texts)


def test_a_collapsibles_button_label_is_not_passage_text() -> None:
    """Docusaurus's <details> and Material for MkDocs' "???" admonitions: the summary is the
    button that opens the body, which is the page's own text."""
    html = page(f"""<main><h1>Quiz</h1><h2 id="questions">Questions</h2><p>{PROSE}</p>
        <p><strong>Question 1:</strong> How long is a conversation kept?</p>
        <details class="details_lb9f alert alert--info" data-collapsed="true"><summary>Reveal Answer</summary>
        <div><div class="collapsibleContent_i85q"><p><strong>Answer:</strong> Seven days.</p></div></div></details>
        <details class="tip"><summary>Show solution</summary><p>Clear the browser's storage.</p></details></main>""")
    result = read_page(html)
    assert result is not None
    texts = [block.text for block in result.blocks if block.kind == "text"]
    assert texts[-2:] == ["Answer: Seven days.", "Clear the browser's storage."]
    assert not any("Reveal" in text or "Show solution" in text for text in texts)


def test_a_page_in_the_encoding_its_head_declares_is_read_in_it(tmp_path: Path) -> None:
    """Vim's help pages are ISO-8859-1 and say so in a meta tag, as browsers read them; a page
    in another encoding that declares none is refused with its name, not misread."""
    head = '<meta http-equiv="Content-type" content="text/html; charset=ISO-8859-1"><title>Digraphs</title>'
    (tmp_path / "digraph.html").write_bytes(
        page(f"<main><h1>Digraphs</h1><p>Type CTRL-K e : for {chr(235)} (e with diaeresis). {PROSE}</p></main>", head)
        .encode("latin-1"))
    (tmp_path / "index.html").write_text(page(f'<main><h1>Help</h1><p>{PROSE}</p><a href="digraph.html">D</a></main>'))
    plan = plan_book(tmp_path, "vimish")
    assert any(f"for {chr(235)} (e with diaeresis)" in c.text for c in plan.chunks if c.source_path == "digraph.html")
    (tmp_path / "digraph.html").write_bytes(page(f"<main><h1>D</h1><p>{chr(235)} {PROSE}</p></main>").encode("latin-1"))
    with pytest.raises(IngestError, match="digraph.html: not UTF-8 text"):
        plan_book(tmp_path, "vimish")


WIDGETD_MAN = r""".TH WIDGETD 8
.SH NAME
widgetd \- the widget daemon
.SH DESCRIPTION
The \fBwidgetd\fR(8) daemon turns sprockets into widgets on demand, and stops by itself
after being idle for a configurable amount of time, or after serving a configurable
number of requests; its queue manager and its non\-empty sprocket cache are resident.
.PP
Options:
.TP
\fB\-c\fR \fIconfig_dir\fR
Read the configuration files in the named directory instead of the default one.
.TP
\fB\-d\fR
Do not detach from the controlling terminal.
.SS Examples
.nf
/etc/widgets/main.cf:
    sprocket_limit = 20
.fi
.SH SEE ALSO
\fBsprocket\fR(5), sprocket tables
"""


def test_a_manual_page_as_man_prints_it_reads_as_its_sections(tmp_path: Path) -> None:
    """Postfix's man2html puts `man`'s output in a <pre> as is: this machine's groff typesets
    a page the same way (nroff, the man macros), and it reads as sections, paragraphs and
    options rather than one code block."""
    source = tmp_path / "widgetd.8"
    source.write_text(WIDGETD_MAN, encoding="utf-8")
    typeset = subprocess.run(
        ["groff", "-man", "-Tutf8", "-P-cbou", "-rLL=78n", str(source)], check=True, capture_output=True, text=True,
    ).stdout
    assert typeset.lstrip().startswith("WIDGETD(8)")
    pre = f"<pre>\n{typeset.replace('&', '&amp;').replace('<', '&lt;')}</pre>"
    result = read_page(page(pre))
    assert result is not None
    headings = [(block.level, block.text) for block in result.blocks if block.kind == "heading"]
    assert headings == [(2, "NAME"), (2, "DESCRIPTION"), (3, "Examples"), (2, "SEE ALSO")]
    texts = [block.text for block in result.blocks if block.kind == "text"]
    assert "widgetd - the widget daemon" in texts
    assert texts[1].startswith("The widgetd(8) daemon turns sprockets into widgets on demand, and stops by itself after")
    assert "-c config_dir: Read the configuration files in the named directory instead of the default one." in texts
    assert "-d: Do not detach from the controlling terminal." in texts
    assert [block.text for block in result.blocks if block.kind == "fence"] == [
        "```\n/etc/widgets/main.cf:\n    sprocket_limit = 20\n```"
    ]
    assert not any("WIDGETD(8)" in text for text in texts)
    shown = read_page(page(f"<main><h1>Writing manual pages</h1><p>An example. {PROSE}</p>{pre}</main>"))  # an example
    assert shown is not None and any(block.kind == "fence" and "WIDGETD(8)" in block.text for block in shown.blocks)


def test_a_word_nroff_hyphenated_at_a_lines_end_is_joined_unless_the_page_spells_it_so() -> None:
    typeset = (
        "MASTER(8)                                                            MASTER(8)\n\n"
        "DESCRIPTION\n"
        "       Exceptions to this rule are the resident queue man-\n"
        "       ager and the non-\n"
        "       empty cache, which is non-empty at start.\n\n"
        "                                                                     MASTER(8)\n"
    )
    assert [(block.kind, block.text) for block in manual_page_blocks(typeset) or []] == [
        ("heading", "DESCRIPTION"),
        ("text", "Exceptions to this rule are the resident queue manager and the non-empty cache, which is non-empty at start."),
    ]
    assert manual_page_blocks("NAME\n       master - Postfix master process\n") is None

