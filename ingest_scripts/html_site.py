"""Built HTML pages → what the page says: its title, its main content as blocks, its URL and
module as the site gives them.

The main content is found generically: a well-known content container (Docusaurus, MkDocs
Material, mdBook), else `<main>`, `[role=main]` or `<article>`, else Sphinx's body; inside it,
what is not the page's own text goes (navigation, headers and footers, forms and buttons,
breadcrumbs, admonition titles, collapsibles' button labels, "edit this page" links, the "¶"/"#"
links of headings). Headings keep the ids the page really has; text comes out as the markdown
path writes it: prose, lists, fenced code blocks and pipe tables, inline code in backticks,
links as their text, no images.
"""

import posixpath
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urljoin, urlsplit
from xml.etree import ElementTree

from selectolax.lexbor import LexborHTMLParser, LexborNode

from backend.retrieval.models import Page
from ingest_scripts.markdown import (
    POINTER_SEPARATORS,
    Block,
    ParsedPage,
    chunks_of,
    drop_unanswered_questions,
    group_sections,
    humanize,
    page_kind,
    placed,
)
from ingest_scripts.permalinks import page_url

# Most specific first: a generic landmark may also hold breadcrumbs, a table of contents and
# prev/next links that the generator's own content container leaves out.
_CONTENT = (
    ".theme-doc-markdown",  # Docusaurus
    ".md-content",  # MkDocs Material
    "#content main", ".content main",  # mdBook
    "main", "[role=main]", "article",
    ".body", ".document",  # Sphinx themes without a main landmark
)
_BREADCRUMBS = "[aria-label*=readcrumb], .breadcrumbs, .breadcrumb, .wy-breadcrumbs"
_NOT_TEXT = (
    "nav, footer, script, style, noscript, template, form, search, button, input, select, "
    "textarea, svg, iframe, [role=navigation], [role=search], "
    f"{_BREADCRUMBS}, "
    ".toctree-wrapper, .table-of-contents, .toc, "  # a table of contents inside the page
    ".navheader, .navfooter, .nav-panel, .docnav, "  # DocBook's, Texinfo's, Publican's previous / up / next links
    ".section-toc, .mini-toc, table.menu, "  # Texinfo's menus
    "table[class^=index-], table[class*=printindex], "  # Texinfo's index (entries linking to sections)
    "[role=tablist], "  # the labels of tabs, not their panels
    ".admonition-title, [class*=admonitionHeading], .custom-block-title, "  # "Note", "Warning"
    "summary, "  # a collapsible's button label ("Reveal Answer"); its body is the page's text
    ".viewcode-link, "  # Sphinx's "[source]" beside a signature
    # A footnote's marker ("immutable¹") and its note's links back to it ("↩"); the note stays.
    "[role=doc-noteref], [role=doc-backlink], [data-footnote-ref], [data-footnote-backref], "
    ".footnote-ref, .footnote-reference, .footnote-backref, .fn-backref, .footnote-return, .backrefs"
)
# The classes of a <div> that is a section of the book (Texinfo's and DocBook's).
_SECTIONING = re.compile(r"\b(?:(?:sub)*section|chapter|appendix\w*|unnumbered\w*|part|sect\d|top)\b")
_ADMONITION_TABLE = ", ".join(
    f".{kind} > table" for kind in ("note", "tip", "hint", "important", "warning", "caution", "danger", "attention")
)
_EDIT_LINK = re.compile(
    r"(edit|improve|view)( this)? (page|source|page source|on \w+)", re.IGNORECASE
)
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_INLINE = frozenset((
    "a", "abbr", "b", "bdi", "bdo", "br", "cite", "code", "data", "del", "dfn", "em", "i", "img",
    "ins", "kbd", "label", "mark", "q", "s", "samp", "small", "span", "strong", "sub", "sup",
    "time", "u", "var", "wbr",
    "acronym", "big", "font", "strike", "tt",  # HTML 4's, still written by DocBook and Texinfo
))
_LIST_BREAKS = frozenset(("ul", "ol", "pre", "table"))  # what a list item's line stops at
# The class of a <dt> that is a program object's signature (Sphinx's "sig", Texinfo's "deffn" …).
_SIGNATURE = re.compile(r"\bsig\b|\bdef")
_SIGNATURE_LIST = re.compile(r"(?:^|\s)def(?:\s|$)")  # Texinfo 6 marks the list, not its <dt>s
_EMPTY_CATEGORY = re.compile(r"^:\s+")  # a signature's category left empty: ": csvwrite (filename, x)"
_FIGURE = re.compile(r"(?:^|\s)(?:figure|informalfigure|mediaobject)(?:\s|$)")  # a figure's box, not its parts
_BREAK = "\x00"  # a <br> while whitespace is collapsed
_LANGUAGE = re.compile(r"(?:^|\s)(?:language|lang|highlight)-([\w+#.-]+)")
_NO_LANGUAGE = ("default", "none", "text")
_SITE_NAME_SEPARATORS = (" | ", " — ", " – ", " · ", " - ")
# `<meta http-equiv=refresh content="0; url=page.html">`: a delay, then the page to go to.
_REFRESH_TARGET = re.compile(r"\s*[\d.]*\s*[;,\s]\s*(?:url\s*=\s*)?(?P<target>.*)", re.IGNORECASE)
MIN_TITLES_SHARING_A_NAME = 3  # fewer titles than this sharing a name do not make it the site's
_NOT_FOUND = re.compile(
    r"(?:404\W*)?(?:(?:page|document|file)\s+)?not\s+found(?:\W*404)?\W*|404", re.IGNORECASE
)
MIN_PROSE_WORDS = 5  # fewer words outside headings and links: an index, tag or search page
# Fewer of its words outside headings and links than this is an index of other pages however
# long (Sphinx's general index, a sitemap, a list of functions: 0.3-8% of their words); content,
# even DocBook's chapters that link every package they name, has a quarter or more.
MIN_PROSE_SHARE = 0.1
# A link marking the page's own entry in a sidebar; class names only when no aria-current says so.
_CURRENT_LINK = "[aria-current=page]"
_ACTIVE_LINK = "a.current, a.active, li.current > a, li.active > a"
_CURRENT_CRUMB = "[aria-current], [class*=active], [class*=current]"


@dataclass
class HtmlPage:
    title: str
    blocks: list[Block]  # offsets are in the page's text (its blocks joined by blank lines)
    canonical: str  # `<link rel=canonical>`, "" when the page has none
    module: str | None  # from its breadcrumbs, its navigation or its rel=up link; None when they say nothing
    tags: list[str]
    description: str = ""  # its `<meta name=description>`
    site_name: str = ""  # the site's name, as its `<title>` gives it after the page's


def read_page(html: str, name: str = "") -> HtmlPage | None:
    """The page's own content, or None for a page that is not content (one that asks not to be
    indexed, a "not found" page, a listing of other pages, one with almost no prose). `name`:
    the page's file name, so that links to the page itself are told from links away."""
    return read_tree(LexborHTMLParser(html), name)


def read_tree(tree: LexborHTMLParser, name: str = "") -> HtmlPage | None:
    """read_page of a parsed page (which it takes apart: read what else it holds first)."""
    if tree.css_first("meta[name=robots][content*=noindex]") or _redirects(tree):
        return None
    content = _main_content(tree)
    module = _breadcrumb_module(tree) or _navigation_module(tree, content) or _up_module(tree)
    _strip(content)
    page_name, site_name = _title_parts(tree)
    _remove([h1 for h1 in content.css("h1") if _says_site_name(h1, site_name)])
    title = _title(content, page_name)
    if _NOT_FOUND.fullmatch(title) or _is_listing(content, name):
        return None
    if _prose_words(content) < max(MIN_PROSE_WORDS, MIN_PROSE_SHARE * len(content.text(separator=" ").split())):
        return None
    canonical = tree.css_first("link[rel=canonical]")
    description = tree.css_first("meta[name=description]")
    return HtmlPage(
        title=title,
        blocks=placed(_titled(list(_blocks(content)), title)),
        canonical=(canonical.attributes.get("href") or "").strip() if canonical else "",
        module=module,
        tags=[_squash(tag.text()) for tag in tree.css("a[rel~=tag]")],
        description=_squash(description.attributes.get("content") or "") if description else "",
        site_name=site_name,
    )


def named_site(pages: dict[str, HtmlPage]) -> tuple[dict[str, HtmlPage], str]:
    """The site's name, and the pages with it taken off their titles. It is the name most
    pages' `<title>`s give after a separator ("Install | My Site": taken off as each page is
    read), else a bracketed group ending most titles ("Nested Functions (GNU Octave (version
    7.3.0))", as Texinfo writes; one page's brackets may be its own, "Installing (Windows)").
    "" when most pages share none."""
    most = max(len(pages) / 2, MIN_TITLES_SHARING_A_NAME - 1)
    named = Counter(page.site_name for page in pages.values() if page.site_name)
    name, count = named.most_common(1)[0] if named else ("", 0)
    if count > most:
        return pages, name
    endings = Counter(ending for page in pages.values() if (ending := _bracketed_ending(page.title)))
    ending, count = endings.most_common(1)[0] if endings else ("", 0)
    if count <= most:
        return pages, ""
    return {rel: _without_ending(page, ending) for rel, page in pages.items()}, ending[1:-1].strip()


def _bracketed_ending(title: str) -> str:
    """The bracketed group that ends the title, after a space ("(GNU Octave (version 7.3.0))");
    "" when none does."""
    if not title.endswith((")", "]")):
        return ""
    depth = 0
    for position in range(len(title) - 1, 0, -1):
        depth += {")": 1, "]": 1, "(": -1, "[": -1}.get(title[position], 0)
        if depth == 0:
            return title[position:] if title[position - 1] == " " else ""
    return ""


def _without_ending(page: HtmlPage, ending: str) -> HtmlPage:
    """The page with the site's name taken off its title: a first heading that says what the
    title now says is the title (see _titled)."""
    if not page.title.endswith(ending) or not (title := page.title.removesuffix(ending).rstrip()):
        return page
    return replace(page, title=title, blocks=_titled(page.blocks, title))


def next_page(tree: LexborHTMLParser, rel: str) -> str:
    """The page (path) that page `rel`'s rel=next link leads to; "" when it has none."""
    link = tree.css_first("link[rel~=next][href], a[rel~=next][href]")
    return _linked(rel, link.attributes.get("href") or "") if link else ""


def reading_order(pages: list[str], following: dict[str, str]) -> list[str]:
    """The pages in the order the site's rel=next links chain them (DocBook, Texinfo, Sphinx,
    mdBook and MkDocs write them: `following`, page → next page, for every page of the site,
    content or not), from each page no other leads to; pages no chain reaches follow."""
    led_to = set(following.values())
    wanted = set(pages)
    starts = sorted(rel for rel in following if rel not in led_to and following[rel])
    chains = []
    for start in starts or [rel for rel in ("index.html",) if rel in following]:  # a loop: from the home page
        chain, seen, page = [], set(), start
        while page in following and page not in seen:
            seen.add(page)
            chain += [page] if page in wanted else []
            page = following[page]
        chains.append(chain)
    order: dict[str, None] = {}
    for chain in sorted(chains, key=len, reverse=True):  # the book's own chain first
        order.update(dict.fromkeys(chain))
    return [*order, *(rel for rel in pages if rel not in order)]


def _linked(rel: str, href: str) -> str:
    """The page path a link on page `rel` leads to (its fragment and query dropped)."""
    parts = urlsplit(href)
    if not href or parts.scheme or parts.netloc or not parts.path:
        return ""
    target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), parts.path)).lstrip("/")
    if parts.path.endswith("/"):
        return f"{target}/index.html" if target else "index.html"
    return target


def _titled(blocks: list[Block], title: str) -> list[Block]:
    """The blocks with the page's first heading as its title (level 1) when it says what the
    page's `<title>` says (in any case): DocBook and Texinfo title a page with an `<h2>` (its
    place in the book's outline), mdBook chapters often open with one, and a section path that
    repeats the page's title says nothing."""
    first = next((i for i, block in enumerate(blocks) if block.kind == "heading"), None)
    if first is None or blocks[first].level == 1 or blocks[first].text.casefold() != title.casefold():
        return blocks
    return [*blocks[:first], replace(blocks[first], level=1), *blocks[first + 1 :]]


def _up_module(tree: LexborHTMLParser) -> str | None:
    """The title of the part of the book the page is in, by its `<link rel=up>` (DocBook, Texinfo
    and Sphinx write one): "Chapter 9. Investments" for a section's page. None when the part is
    the book's home page (its `rel=home` or `rel=start` link), or the link has no title."""
    up = tree.css_first("link[rel~=up][title]")
    if up is None:
        return None
    home = tree.css_first("link[rel~=home], link[rel~=start]")
    if home is not None and home.attributes.get("href") == up.attributes.get("href"):
        return None
    return _squash(up.attributes.get("title") or "") or None


def chunk_html_page(
    page: HtmlPage,
    source_path: str,
    *,
    book: str,
    module: str,
    url: str,
    lesson_id: str,
    is_index: bool,
) -> ParsedPage:
    """The page's record and passages, as `markdown.chunk_page` makes them, each section's
    anchor being its heading's id on the page. `is_index`: the page is a folder's index."""
    # `a/b/index.html` is page b, as `a/b.html` is, unless pages are served under it
    name = source_path if is_index else re.sub(r"/index\.html$", ".html", source_path)
    record = Page(
        book=book,
        lesson_id=lesson_id,
        source_path=source_path,
        title=page.title or humanize(source_path),  # a page that names itself nowhere
        module=module,
        url=url,
        kind=page_kind(name, page.tags, page.title, [b.text for b in page.blocks if b.kind == "heading"]),
        tags=page.tags,
        description=page.description,
    )
    blocks, dropped = page.blocks, 0
    if record.kind == "quiz":
        blocks, dropped = drop_unanswered_questions(blocks)
    return ParsedPage(record, chunks_of(group_sections(blocks, record.title), record), dropped)


def published_url(canonical: str, sitemap_url: str | None, base_url: str, served_path: str) -> str:
    """The canonical link (resolved against the base URL when relative), else the page's URL in
    sitemap.xml, else the base URL and the path the file is served at."""
    if canonical:
        return urljoin(base_url.rstrip("/") + "/", canonical) if base_url else canonical
    return sitemap_url or page_url(base_url, served_path)


def sitemap_urls(root: Path, served_paths: dict[str, str]) -> dict[str, str]:
    """Each page's URL in the site's sitemap.xml (page path → URL): a URL belongs to the page
    served at the end of its path (the site may live under a path of its origin)."""
    try:
        locations = ElementTree.parse(root / "sitemap.xml").getroot().iterfind(".//{*}loc")
    except (OSError, ElementTree.ParseError):
        return {}
    pages: dict[str, str] = {}
    for rel, served in served_paths.items():
        pages[served.strip("/")] = rel
        pages.setdefault(served.strip("/").removesuffix(".html"), rel)  # clean URLs
    urls: dict[str, str] = {}
    for location in locations:
        url = (location.text or "").strip()
        parts = [part for part in urlsplit(url).path.split("/") if part]
        # the site's root page only when the URL is the origin's: "/" ends every path
        ends = ["/".join(parts[i:]) for i in range(len(parts))] or [""]
        rel = next((pages[end] for end in ends if end in pages), None)
        if rel:
            urls.setdefault(rel, url)
    return urls


@dataclass
class Placement:
    index_page: str | None  # the index page of the folder the page is in; None at the site's top
    is_index: bool  # the page is a folder's index: other pages are served under its path


def placements(served_paths: dict[str, str]) -> dict[str, Placement]:
    """Where each page (page path → served path) sits in the site's folders; a folder's index
    page is in its own folder, and the top folder (the one holding every page) is no module."""
    if not served_paths:
        return {}
    parents = {  # "/a/b/" → "/", "/a/"
        served[: i + 1]
        for served in served_paths.values()
        for i, ch in enumerate(served[:-1])
        if ch == "/"
    }
    indexes = {
        served: rel for rel, served in served_paths.items() if served in parents or served == "/"
    }
    folders = {
        rel: served if served in indexes else served.rstrip("/").rsplit("/", 1)[0] + "/"
        for rel, served in served_paths.items()
    }
    top = posixpath.commonpath(list(folders.values())).rstrip("/")
    return {
        rel: Placement(
            None if folder.rstrip("/") == top else indexes.get(folder),
            served_paths[rel] in indexes,
        )
        for rel, folder in folders.items()
    }


def _main_content(tree: LexborHTMLParser) -> LexborNode:
    for selector in _CONTENT:
        if node := tree.css_first(selector):
            return node
    return tree.body  # type: ignore[return-value]  # the parser always makes one


def _breadcrumb_module(tree: LexborHTMLParser) -> str | None:
    """The last breadcrumb before the page itself."""
    trail = tree.css_first(_BREADCRUMBS)
    if trail is None:
        return None
    crumbs: list[str] = []
    for item in trail.css("li") or list(trail.iter()):
        if item.css_matches(_CURRENT_CRUMB) or item.css_first(_CURRENT_CRUMB):
            break
        if text := _squash(item.text()):
            crumbs.append(text)
    return crumbs[-1] if crumbs else None


def _navigation_module(tree: LexborHTMLParser, content: LexborNode) -> str | None:
    """The section of the navigation that holds the page's own link."""
    # the deepest "active" link is the page's own; those above it are its sections'
    links = tree.css(_CURRENT_LINK) + list(reversed(tree.css(_ACTIVE_LINK)))
    for link in links:
        if _is_inside(link, content):
            continue
        item = _ancestor(link, "li")
        section = _ancestor(item, "li") if item else None
        if section and (label := _label(section)):
            return label
    return None


def _label(item: LexborNode) -> str:
    """A navigation entry's own text, not its sub-entries'. mdBook lists a chapter's sections in
    an entry of their own, right after the chapter's."""
    for child in item.iter():
        if child.tag in ("ul", "ol"):
            previous = item.prev
            while previous is not None and previous.tag.startswith("-"):  # text, comments
                previous = previous.prev
            return _label(previous) if previous is not None and previous.tag == "li" else ""
        if text := _squash(child.text()):
            return text
    return ""


def _ancestor(node: LexborNode, tag: str) -> LexborNode | None:
    return next((parent for parent in _ancestors(node) if parent.tag == tag), None)


def _is_inside(node: LexborNode, container: LexborNode) -> bool:
    return any(parent.mem_id == container.mem_id for parent in _ancestors(node))


def _ancestors(node: LexborNode) -> Iterator[LexborNode]:
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def _strip(content: LexborNode) -> None:
    """Takes out of the content what is not the page's own text."""
    _remove(content.css(_NOT_TEXT))
    for header in content.css("header"):  # a page header may hold the title; other headers go
        if header.css_first("h1"):
            header.unwrap()
    _remove(content.css("header"))
    _remove([aside for aside in content.css("aside") if _mostly_links(aside)])  # not a note
    _remove([nav for nav in content.css("div.header") if _mostly_links(nav)])  # Texinfo's "Next: …, Up: …"
    # Texinfo's table of contents: the division its "Table of Contents" heading opens.
    _remove([heading.parent for heading in content.css(".contents-heading, .shortcontents-heading")
             if heading.parent is not None])
    # DocBook lays an admonition out as a table: its icon and "Note" label, then its text.
    for table in content.css(_ADMONITION_TABLE):
        _remove(table.css("th, img"))
        for part in [*table.css("td, tr, thead, tbody"), table]:
            part.unwrap()
    _remove([
        link for link in content.css("a[href]")
        if _EDIT_LINK.fullmatch(_squash(link.text()))
        or (_ancestor_in(link, (*_HEADINGS, "dt")) and not any(ch.isalnum() for ch in link.text()))  # "¶"
    ])


def _ancestor_in(node: LexborNode, tags: tuple[str, ...]) -> bool:
    return any(parent.tag in tags for parent in _ancestors(node))


def _remove(nodes: list[LexborNode]) -> None:
    """Removes the nodes; one inside another removed node goes with it (never twice)."""
    removed = {node.mem_id for node in nodes}
    for node in nodes:
        if not any(parent.mem_id in removed for parent in _ancestors(node)):
            node.decompose()


def _mostly_links(node: LexborNode) -> bool:
    linked = sum(len(_squash(link.text())) for link in node.css("a"))
    return linked * 2 >= len(_squash(node.text()))


def _is_listing(content: LexborNode, name: str) -> bool:
    """A page whose every section title links to another page: tags, categories, blog lists.
    (Some generators link each title to the page itself, as Exim's xfpt does: not a listing.)"""
    headings = content.css("h2, h3, h4, h5, h6")
    return bool(headings) and all(_links_away(heading, name) for heading in headings)


def _links_away(heading: LexborNode, name: str) -> bool:
    links = [_ancestor(heading, "a")] + heading.css("a")
    hrefs = [(link.attributes.get("href") or "#") for link in links if link is not None]
    return any(
        not href.startswith("#") and (not name or posixpath.basename(urlsplit(href).path) != name)
        for href in hrefs
    )


def _prose_words(content: LexborNode) -> int:
    """Words outside headings and links."""
    probe = content.clone()
    _remove(probe.css("a, h1, h2, h3, h4, h5, h6"))
    words = len(probe.text(separator=" ").split())
    probe.decompose()
    return words


def _redirects(tree: LexborHTMLParser) -> bool:
    """A page that sends the browser on to another (`<meta http-equiv=refresh content="0;
    url=…">`): a moved page, or Texinfo's pointer to where a function's node now lives. Its
    content is at the page it names; a refresh that names no page, or a place on the same
    one, reloads it."""
    refresh = tree.css_first("meta[http-equiv=refresh i][content]")
    if refresh is None:
        return False
    parts = _REFRESH_TARGET.match(refresh.attributes.get("content") or "")
    target = parts.group("target").strip(" '\"") if parts else ""
    return bool(target) and not target.startswith("#")


def _says_site_name(h1: LexborNode, site_name: str) -> bool:
    """An `<h1>` that says the site's name, as its `<title>` gives it after the page's ("Readline
    | Node.js v18.20.4 Documentation"): the banner every page repeats, not the page's title."""
    return bool(site_name) and _squash(h1.text()).casefold() == site_name.casefold()


def _title_parts(tree: LexborHTMLParser) -> tuple[str, str]:
    """The `<title>` as the page's name and the site's ("Install | My Site", "Install — My Site",
    "Install - My Site"); the site's is "" when it names none, both when there is no <title>."""
    if (head := tree.css_first("title")) is None:
        return "", ""
    title = _squash(head.text())
    for separator in _SITE_NAME_SEPARATORS:
        page, found, site = title.rpartition(separator)
        if found and page.strip():
            return page.strip(), site.strip()
    return title, ""


def _title(content: LexborNode, page_name: str) -> str:
    """The content's `<h1>`, else the page's name in its `<title>` (`page_name`), else its first
    heading. A page with several `<h1>` uses them for its sections, and its `<title>` names it."""
    if len(h1s := content.css("h1")) == 1:
        return _squash(h1s[0].text())
    if page_name:
        return page_name
    heading = content.css_first(", ".join(_HEADINGS))
    return _squash(heading.text()) if heading else ""


def _blocks(node: LexborNode) -> Iterator[Block]:
    """The node's blocks in reading order; a run of inline content makes a paragraph."""
    run: list[LexborNode] = []
    for child in node.iter(include_text=True):
        if child.tag == "-text" or (child.tag in _INLINE and not _holds_blocks(child)):
            run.append(child)
            continue
        yield from _paragraph(run)
        run = []
        if child.tag in _HEADINGS:
            yield Block("heading", 0, 0, _squash(child.text()), int(child.tag[1]), _anchor(child))
        elif child.tag == "pre":
            yield _fence(child)
        elif child.tag == "table":
            yield from _table(child)
        elif child.tag in ("ul", "ol"):
            yield from _list(child)
        elif child.tag == "dl":
            yield from _definitions(child)
        elif not child.tag.startswith("-"):  # comments
            yield from _blocks(child)
    yield from _paragraph(run)


def _holds_blocks(node: LexborNode) -> bool:
    return any(not d.tag.startswith("-") and d.tag not in _INLINE for d in node.traverse())


def _paragraph(run: list[LexborNode]) -> Iterator[Block]:
    """A run of inline content; one that is only links ("Download the ebook") points elsewhere
    and states nothing, as a list item of links does."""
    text = _squash("".join(_inline(node) for node in run))
    if text and not _only_links(run):
        yield Block("text", 0, 0, text)


def _inline(node: LexborNode, skip: frozenset[str] = frozenset()) -> str:
    """Text as shown, code in backticks, links as their text; block elements inside are kept
    apart by a space."""
    if node.tag == "-text":
        return node.text_content or ""
    if node.tag == "br":
        return _BREAK
    if node.tag in skip or node.tag.startswith("-"):
        return ""
    text = "".join(_inline(child, skip) for child in node.iter(include_text=True))
    if node.tag == "code":
        return f"`{_squash(text)}`" if text.strip() else ""
    return text if node.tag in _INLINE else f" {text} "


def _squash(text: str) -> str:
    """Whitespace as a browser shows it: runs of it are one space; a <br> breaks the line."""
    return "\n".join(" ".join(line.split()) for line in text.split(_BREAK)).strip()


def _anchor(heading: LexborNode) -> str:
    """The heading's id, an `<a id|name>` inside it, or the id of the section (or division)
    it heads."""
    if anchor := heading.attributes.get("id"):
        return anchor
    for link in heading.css("a[id], a[name]"):
        return link.attributes.get("id") or link.attributes.get("name") or ""
    section = heading.parent  # Sphinx's is a <section>, Texinfo's a <div class="chapter" id="Node">
    if section is None or not (
        section.tag == "section" or section.tag == "div" and _SECTIONING.search(section.attributes.get("class") or "")
    ):
        return ""
    first = section.css_first(", ".join(_HEADINGS))
    is_its_title = first is not None and first.mem_id == heading.mem_id
    return (section.attributes.get("id") or "") if is_its_title else ""


def _fence(pre: LexborNode) -> Block:
    code = _code(pre).strip("\n").rstrip()
    return Block("fence", 0, 0, f"```{_language(pre)}\n{code}\n```")


def _code(node: LexborNode) -> str:
    if node.tag == "-text":
        return node.text_content or ""
    if node.tag == "br":
        return "\n"
    return "".join(_code(child) for child in node.iter(include_text=True))


def _language(pre: LexborNode) -> str:
    """From a `language-x` class on the code, the pre or around it (Sphinx: `highlight-x`)."""
    parent = pre.parent
    for node in (pre.css_first("code"), pre, parent, parent.parent if parent else None):
        match = _LANGUAGE.search(node.attributes.get("class") or "") if node else None
        if match and match[1] not in _NO_LANGUAGE:
            return match[1]
    return ""


def _table(table: LexborNode) -> Iterator[Block]:
    """A pipe table, the first row as its header."""
    rows = [
        [_squash(_inline(cell)).replace("\n", " ").replace("|", "\\|")
         for cell in row.iter() if cell.tag in ("th", "td")]
        for row in table.css("tr")
    ]
    rows = [row for row in rows if row]
    if rows:
        width = max(len(row) for row in rows)
        lines = ["| " + " | ".join(row + [""] * (width - len(row))) + " |" for row in rows]
        lines.insert(1, "|" + "---|" * width)
        yield Block("table", 0, 0, "\n".join(lines))


def _list(node: LexborNode) -> Iterator[Block]:
    """A list is one block of "- item" lines (nested lists indented); a code block or table in an
    item is a block of its own between them."""
    lines: list[str] = []
    for part in _list_parts(node, 0):
        if isinstance(part, str):
            lines.append(part)
            continue
        if lines:
            yield Block("text", 0, 0, "\n".join(lines))
            lines = []
        yield part
    if lines:
        yield Block("text", 0, 0, "\n".join(lines))


def _definitions(node: LexborNode) -> Iterator[Block]:
    """A definition list (a manual's options, a glossary): each term leads the first paragraph
    of its definition, "Threshold: The minimum difference …", as a glossary entry reads in
    markdown, so that neither is quoted without the other; the definition's other blocks follow,
    and a definition that opens with a list or code keeps its terms as a lead-in ("Mode:"). A
    program object's signature (Sphinx's, Texinfo's) heads its description as a heading would."""
    terms: list[str] = []
    defined = False  # the terms have had a definition, so a next term starts a new entry
    signatures = _SIGNATURE_LIST.search(node.attributes.get("class") or "")
    for child in _entries(node):
        if child.tag == "dt":
            if defined:
                terms, defined = [], False
            term = _EMPTY_CATEGORY.sub("", _squash(_inline(child))).rstrip(": ")
            if term and (signatures or _SIGNATURE.search(child.attributes.get("class") or "")):
                yield Block("text", 0, 0, term)
            elif term:
                terms.append(term)
        elif child.tag == "dd":
            # A figure the definition opens with (an example image and its caption) is not
            # what defines the term: the term leads the prose after it.
            figures = list(_leading_figures(child))
            shown = [block for figure in figures for block in _blocks(figure)]
            blocks = list(_blocks(child))[len(shown):]
            lead = ", ".join(terms)
            if lead and blocks and blocks[0].kind == "text" and _opens_with_prose(child, skip=figures):
                blocks[0] = Block("text", 0, 0, f"{lead}: {blocks[0].text}")
            elif lead:
                yield Block("text", 0, 0, f"{lead}:")
            defined = True
            yield from shown
            yield from blocks
        elif child.tag == "-text":
            yield from _paragraph([child])
        elif not child.tag.startswith("-"):  # comments
            yield from _blocks(child)
    if terms and not defined:
        yield Block("text", 0, 0, ", ".join(terms))


def _entries(node: LexborNode) -> Iterator[LexborNode]:
    """A definition list's children, with those of the <div>s that HTML lets group a term and
    its definition in their place."""
    for child in node.iter(include_text=True):
        if child.tag == "div":
            yield from _entries(child)
        else:
            yield child


def _leading_figures(node: LexborNode) -> Iterator[LexborNode]:
    """The figures a node's content opens with (<figure>, DocBook's and docutils' figure divs)."""
    for child in node.iter(include_text=True):
        if child.tag == "figure" or _FIGURE.search(child.attributes.get("class") or ""):
            yield child
        elif (child.text_content or "").strip() or child.tag not in ("-text", "-comment", "a", "br"):
            return  # anything that shows (an anchor or a break before the figure shows nothing)


def _opens_with_prose(node: LexborNode, skip: list[LexborNode] | None = None) -> bool:
    """Whether the node's first content is prose, not a list, a table or code (after the
    children `skip`)."""
    for child in node.iter(include_text=True):
        if skip and any(child == figure for figure in skip):
            continue
        if child.tag == "-text":
            if (child.text_content or "").strip():
                return True
        elif child.tag in ("div", "section", "blockquote"):
            return _opens_with_prose(child)
        elif not child.tag.startswith("-"):
            return child.tag not in ("ul", "ol", "dl", "pre", "table")
    return False


def _list_parts(node: LexborNode, depth: int) -> Iterator[str | Block]:
    items = [child for child in node.iter() if child.tag == "li"]
    start = node.attributes.get("start") or "1"
    for number, item in enumerate(items, start=int(start) if start.isdigit() else 1):
        marker = f"{number}." if node.tag == "ol" else "-"
        text = _squash(_inline(item, skip=_LIST_BREAKS))
        if text and not _only_links(item):
            yield "  " * depth + f"{marker} {text}"
        for inner in _outermost(item, _LIST_BREAKS):
            if inner.tag in ("ul", "ol"):
                yield from _list_parts(inner, depth + 1)
            elif inner.tag == "pre":
                yield _fence(inner)
            else:
                yield from _table(inner)


def _only_links(nodes: LexborNode | list[LexborNode]) -> bool:
    """A list item, or a run of inline content, that is only links points elsewhere and states
    nothing (as in markdown.without_pointers)."""
    run = nodes if isinstance(nodes, list) else [nodes]
    elements = [node for node in run if not node.tag.startswith("-")]
    if not any(node.tag == "a" and "href" in node.attributes or node.css_first("a[href]") for node in elements):
        return False
    rest = "".join(_inline(node, skip=_LIST_BREAKS | {"a"}) for node in run)
    return POINTER_SEPARATORS.fullmatch(rest) is not None


def _outermost(node: LexborNode, tags: frozenset[str]) -> Iterator[LexborNode]:
    for child in node.iter():
        if child.tag in tags:
            yield child
        else:
            yield from _outermost(child, tags)

