"""Markdown/MDX pages → heading-bounded chunks.

markdown-it-py finds the block structure (so a `#` inside a code fence is never a heading and
fences and tables are split only past a cost bound, into fences and tables); chunk text is the page's own markdown, cleaned of MDX
imports/exports and JSX tags, with character offsets into the source file.
"""

import math
import re
import textwrap
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from pathlib import PurePosixPath

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.footnote import footnote_plugin

from backend.retrieval.models import Chunk, Page, PageKind
from ingest_scripts.permalinks import (
    HeadingSlugger,
    is_index_page,
    split_custom_id,
    strip_number_prefix,
)

MAX_TOKENS = 400  # chunk budget; sections above it are split into even parts
# A code block or a table is kept whole, as the page shows it, up to this size; past it, what
# embedding, searching and quoting it costs grows without bound (Vim's help pages are each one
# <pre> of up to 2 MB), so it is cut into parts of the budget at its blank lines, else its lines.
# A safety bound an order of magnitude above the budget, not a reading choice: of the 45 books
# in eval/questions, 13 passages in five reach it.
MAX_BLOCK_TOKENS = 10 * MAX_TOKENS
CHARS_PER_TOKEN = 4  # what estimate_tokens counts as a token
MIN_TOKENS = 40  # a section smaller than this is folded into the next one of the same page
OVERLAP_SENTENCES = 1

# Footnotes ("text[^note]" and "[^note]: …") are read as the page shows them: the marker is a
# superscript link, and the note's text is content, read where it is written.
_md = MarkdownIt("commonmark").enable("table").use(footnote_plugin)
_MDX_STATEMENT = re.compile(r"^\s*(import|export)\s")
_TAG = re.compile(r"</?[A-Za-z][\w.:-]*(\s[^<>]*)?/?>")
# Comments readers never see: MDX `{/* … */}` and HTML `<!-- … -->`, either of which may span
# blank lines (and so several blocks).
_COMMENTS = {"{/*": "*/}", "<!--": "-->"}
_COMMENT = re.compile(
    "|".join(f"{re.escape(start)}.*?{re.escape(end)}" for start, end in _COMMENTS.items()), re.DOTALL
)
# A Python special name written without backticks ("__new__()", "object.__init__", "__init__.py"):
# a markdown reader takes its underscores for bold and shows "new()". An identifier, so it is
# read as code (a capitalised "__Note__" is still bold).
_SPECIAL_NAME = re.compile(r"(?<![\w`\\])(?:[A-Za-z_]\w*\.)*__[a-z][a-z0-9_]*?__(?:\.\w+)*(?:\(\))?(?![\w`])")
_CODE_OR_SPECIAL_NAME = re.compile(rf"(?P<code>(?P<ticks>`+).+?(?P=ticks))|{_SPECIAL_NAME.pattern}", re.DOTALL)
# A collapsible (`<details>`): its `<summary>` is the label of the button that shows it ("Reveal
# Answer"), not text of the book; its body is the book's, shown when the reader opens it.
_COLLAPSIBLE = re.compile(
    r"<details\b[^>]*>|</details\s*>|<summary\b[^>]*>(?P<summary>.*?)</summary\s*>", re.IGNORECASE | re.DOTALL
)
_FOOTNOTE_LABEL = re.compile(r"\A[ \t]*\[\^[^\]]+\]:[ \t]?")
# Inline markup a reader sees as its text: a code span is left as it is (`<robot>` included);
# an image and an HTML/JSX tag show no text; a link, inline or by reference ("[its docs][cargo]",
# "[cargo][]", "[cargo]"), shows its text (its target is a source file path or another site's
# URL, not a passage of the book).
#
# MyST (Sphinx, Jupyter Book) writes cross-references as roles, "{func}`attrs.define`", shown as
# their text: as code for objects of a program, as words otherwise; "{pep}`681`" as "PEP 681";
# "{ref}`the guide <target>`" as its title, "{class}`~attrs.Attribute`" as its last name.
_ROLE = r"(?<![\w$])\{(?P<role>[\w.:+-]+)\}(?P<role_ticks>`+)(?P<role_text>.+?)(?P=role_ticks)"
_INLINE = re.compile(
    _ROLE +
    r"|(?P<code>(?P<ticks>`+).+?(?P=ticks))"
    r"|\[\^(?P<footnote>[^\]\s]+)\]"
    rf"|(?P<tag>{_TAG.pattern})"
    r"|(?P<image>!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])?)"
    r"|\[(?P<text>[^\]]*)\](?:\((?P<target>[^)]*)\)|\[(?P<label>[^\]]*)\])?",
    re.DOTALL,
)
# Admonitions: Docusaurus fences (`:::note Title` … `:::`) and the MkDocs / Python-Markdown
# opener (`!!! note "Title"`, collapsible `???`), whose content is indented by four spaces: the
# markers are markup, the content prose. A MyST directive's fence (`:::{tab-item} pip`) takes
# its option lines (`:sync: pip`) with it.
_ADMONITION_FENCE = re.compile(
    r"^[ \t]*(?::::+\{[\w:-]+\}[^\n]*\n(?:[ \t]*:[\w-]+:[^\n]*(?:\n|$))*|(?::::+|(?:!!!|\?\?\?\+?)[ \t]+[\w-]+)[^\n]*\n?)",
    re.MULTILINE,
)
# A colon fence's opener: MyST's (`:::{note} Title`, `::::{tab-item} pip`) or Docusaurus'
# (`:::tip What You'll Learn`, `:::note[Title]`); mkdocstrings' `::: package.module` is none.
_COLON_OPENER = re.compile(r"[ \t]*:{3,}(?:\{[\w:-]+\}|[a-z][\w-]*(?:\[[^\]\n]*\])?)[^\n]*")
# MyST: a target label line, "(custom-comparison)=", names the heading under it; readers see nothing.
# A line opening with "%" is a MyST comment.
_MYST_LABEL_OR_COMMENT = re.compile(r"^[ \t]*(?:\([\w.:-]+\)=[ \t]*|%(?:[ \t].*)?)$\n?", re.MULTILINE)
_MYST_CODE_ROLES = frozenset({
    "func", "meth", "class", "obj", "attr", "mod", "data", "exc", "const", "any", "code",
    "literal", "samp", "file", "command", "envvar", "option", "kbd", "program", "type",
})
# MyST directives written as fences (```{note}): admonitions hold prose, these hold code, and the
# rest (toctree, include, eval-rst, figure, autodoc, …) hold nothing a reader sees as text.
_MYST_PROSE = frozenset({
    "note", "warning", "tip", "important", "caution", "attention", "danger", "error", "hint",
    "seealso", "admonition", "versionadded", "versionchanged", "deprecated", "topic", "sidebar",
    "margin", "dropdown",
})
# The language Sphinx highlights each of its doctest extension's examples in (testsetup and
# testcleanup are not shown): the reST reader gives it; a MyST fence keeps its own opener.
DOCTEST_LANGUAGE = {"doctest": "pycon", "testcode": "python", "testoutput": "none"}
_MYST_CODE = frozenset({"code", "code-block", "sourcecode", "code-cell", *DOCTEST_LANGUAGE})
# Sphinx's domains' object directives (`.. py:class::`, ```{c:function}```), which the Python and
# the std domains' also name without their prefix; `module`, `currentmodule` and `program` show
# nothing of their own.
SPHINX_OBJECTS = {
    "py": ("class", "function", "method", "classmethod", "staticmethod", "attribute", "property", "data",
           "exception", "decorator", "decoratormethod", "type"),
    "c": ("function", "member", "macro", "type", "struct", "union", "enum", "enumerator", "var"),
    "cpp": ("class", "struct", "function", "member", "var", "type", "concept", "enum", "enum-struct",
            "enum-class", "enumerator", "union"),
    "js": ("function", "method", "class", "data", "attribute"),
    "std": ("option", "envvar", "describe", "object", "cmdoption"),
}
# What Sphinx prints before an object's signature, by the directive's kind.
_SIGNATURE_LEADS = {
    "class": "class {}", "exception": "exception {}", "classmethod": "classmethod {}",
    "staticmethod": "static {}", "property": "property {}", "decorator": "@{}", "decoratormethod": "@{}",
    "struct": "struct {}", "union": "union {}", "enum": "enum {}", "enum-struct": "enum struct {}",
    "enum-class": "enum class {}", "concept": "template concept {}",
}
# sphinx-design's containers: tabs, grids and cards lay out markdown (prose, code, lists) that
# the page shows in full; their bodies are read as the page's own blocks.
_MYST_CONTAINERS = frozenset({
    "tab-set", "tab-item", "tab-set-code", "grid", "grid-item", "grid-item-card", "card", "card-carousel",
})
# A directive's options opening its body, read with .match(text, pos): a YAML block (its lines
# neither blank nor fence lines, so that a search from every opener of a page stops soon), or
# ":class: tip" lines.
_YAML_OPTIONS = re.compile(r"[ \t]*---[ \t]*\n(?:(?![ \t]*(?:---|:::|```))[ \t]*\S[^\n]*\n)*?[ \t]*---[ \t]*(?:\n|\Z)")
_DIRECTIVE_OPTIONS = re.compile(r"(?:[ \t]*:[\w-]+:.*(?:\n|\Z))+")
# A list item that is only links ("- [Redux vs. the Context API](https://…)", a "Further
# information" or "See also" list) points the reader elsewhere: it states nothing, and what it
# names is on another page or site. Its line goes (unless lines of its own item follow it).
_LIST_ITEM = re.compile(
    r"^(?P<indent>[ \t]*(?:>[ \t]*)*)(?:[-*+]|\d{1,9}[.)])[ \t]+(?P<content>.*)$"  # in a quote too
)
_FENCE_LINE = re.compile(r"^[ \t>]*(?:```|~~~)")
_LABEL_PARAGRAPH = re.compile(r"(\*\*|__)[^*_\n.!?]{1,40}\1:?")  # "**Articles**", not a rule
POINTER_SEPARATORS = re.compile(r"[\s,;:|·–—-]*")
# A link whose text is an address (a URL, an e-mail address) states where, as a sentence would:
# "The bug database is available at https://bugs.launchpad.net/sbcl".
_ADDRESS = re.compile(r"(?:[a-z][a-z0-9+.-]*://|www\.|mailto:)\S+|[^\s@<>()]+@[^\s@<>()]+\.[a-z]{2,}", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(*])")
_QUIZ_QUESTION = re.compile(r"^\s*question\s*\d+", re.IGNORECASE)
_QUIZ_ANSWER = re.compile(r"^\W*(correct\s+|sample\s+|reveal\s+)?answers?\b", re.IGNORECASE | re.MULTILINE)


class FrontMatterError(ValueError):
    """Front matter that is not valid YAML; the message names the file and line."""


@dataclass
class Block:
    kind: str  # "heading", "fence", "table", "html" or "text"
    start: int  # character offsets in the source file (of an HTML page: in its text)
    end: int
    text: str
    level: int = 0  # heading level
    anchor: str = ""  # a heading's anchor, once known
    page: int = 0  # a PDF's page number (1-based); 0 for pages of a site
    collapsible: int = 0  # the number on its page of the collapsible it is the body of; 0: none
    summary: str = ""  # that collapsible's label


def placed(blocks: list[Block]) -> list[Block]:
    """The blocks with their offsets in the text they make joined by blank lines (what a built
    HTML page or a PDF has in place of a source file)."""
    out: list[Block] = []
    start = 0
    for block in blocks:
        out.append(replace(block, start=start, end=start + len(block.text)))
        start += len(block.text) + 2
    return out


@dataclass
class Section:
    path: list[str]
    heading: str
    anchor: str
    blocks: list[Block] = field(default_factory=list)


@dataclass
class ParsedPage:
    page: Page
    chunks: list[Chunk]
    dropped_questions: int


_FRONT_MATTER_KEY = re.compile(r"[A-Za-z_][\w-]*:(\s|$)")


def split_front_matter(source: str, source_path: str) -> tuple[dict, int]:
    """Returns the front matter and the character offset where the body starts: YAML between
    `---` lines, or TOML between `+++` lines (Hugo's)."""
    fence = source[:3]
    first_line_end = source.find("\n")
    if fence not in ("---", "+++") or first_line_end < 0 or source[3:first_line_end].strip():
        return {}, 0
    closing = re.compile(rf"^{re.escape(fence)}[ \t]*\r?$", re.MULTILINE).search(source, first_line_end + 1)
    if closing is None:
        # A page may open with a thematic break; one whose next line is a `key:` opened front matter.
        if fence == "+++" or _FRONT_MATTER_KEY.match(source, first_line_end + 1):
            raise FrontMatterError(f"{source_path}:1: front matter is never closed (no '{fence}' line after it)")
        return {}, 0
    raw = source[first_line_end + 1 : closing.start()]
    data = _toml_mapping(raw, source_path) if fence == "+++" else _yaml_mapping(raw, source_path)
    body_start = source.find("\n", closing.end())
    return data, len(source) if body_start < 0 else body_start + 1


class _FrontMatterLoader(yaml.SafeLoader):
    """YAML without aliases. Front matter is a few keys and never needs `*name`; with aliases, a
    few hundred bytes of nested references become billions of items once written out (a page
    title of gigabytes from a 387-byte upload)."""

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            raise yaml.composer.ComposerError(
                None, None, "front matter may not use aliases (*name)", self.peek_event().start_mark
            )
        return super().compose_node(parent, index)  # type: ignore[arg-type]


def _yaml_mapping(raw: str, source_path: str) -> dict:
    try:
        data = yaml.load(raw, Loader=_FrontMatterLoader) or {}  # a SafeLoader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark else 1  # +1 for the opening '---', +1 for 1-based lines
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise FrontMatterError(f"{source_path}:{line}: front matter: {problem}") from exc
    if not isinstance(data, dict):
        raise FrontMatterError(f"{source_path}:2: front matter must be a mapping of keys")
    return data


def _toml_mapping(raw: str, source_path: str) -> dict:
    try:
        return tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        raise FrontMatterError(f"{source_path}: front matter: {exc}") from exc


def as_shown(
    markdown: str, references: frozenset[str] = frozenset(), footnotes: frozenset[str] = frozenset()
) -> str:
    """Prose as the page shows it: links become their text; tags, images, admonition fences and
    the markers of the page's `footnotes` (their labels) go; code spans stay, and Python's
    special names are code (see _SPECIAL_NAME). `references` are the page's link reference
    labels (upper case), which make "[label]" a link."""

    def shown(match: re.Match[str]) -> str:
        if match["role"]:
            return role_shown(match["role"], match["role_text"])
        if match["code"]:
            return match[0]
        if match["footnote"] is not None:
            return "" if match["footnote"] in footnotes else match[0]
        if match["tag"] is not None or match["image"] is not None:
            return ""
        return match["text"] if _is_link(match, references) else match[0]

    text = _ADMONITION_FENCE.sub("", _MYST_LABEL_OR_COMMENT.sub("", _INLINE.sub(shown, markdown)))
    return with_names_as_code(text)


def with_names_as_code(markdown: str) -> str:
    """The markdown with Python's special names written as code spans (see _SPECIAL_NAME)."""
    return _CODE_OR_SPECIAL_NAME.sub(lambda m: m[0] if m["code"] else f"`{m[0]}`", markdown)


def without_pointers(markdown_list: str, references: frozenset[str] = frozenset()) -> str:
    """A list's markdown without the items that are only links (see _LIST_ITEM); code in an
    item is left as written."""
    lines = markdown_list.split("\n")
    kept: list[str] = []
    in_code = False
    for number, line in enumerate(lines):
        if _FENCE_LINE.match(line):
            in_code = not in_code
        item = None if in_code else _LIST_ITEM.match(line)
        if item and _only_links(item["content"], references):
            following = next((later for later in lines[number + 1 :] if later.strip()), "")
            continues = not _LIST_ITEM.match(following) and _indent(following) > len(item["indent"])
            if not continues:
                continue
        kept.append(line)
    return "\n".join(kept)


def _only_links(text: str, references: frozenset[str]) -> bool:
    links: list[str] = []

    def without_link(match: re.Match[str]) -> str:
        if match["text"] is not None and _is_link(match, references) and not is_address(match["text"]):
            links.append(match[0])
            return ""
        return match[0]

    rest = _INLINE.sub(without_link, text)  # one pass: the links taken out, and counted
    return bool(links) and POINTER_SEPARATORS.fullmatch(rest) is not None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def unprefixed(name: str) -> str:
    """A role's or a directive's name without its Sphinx domain ("py:class" → "class")."""
    return name.rsplit(":", 1)[-1]


def role_shown(role: str, text: str) -> str:
    """A MyST role as Sphinx renders it (see the comment on _INLINE)."""
    name = unprefixed(role)
    titled = re.fullmatch(r"(?s)(.+?)\s*<[^<>]+>", text)
    if titled:
        text = titled.group(1)
    elif text.startswith("~"):
        text = text[1:].rsplit(".", 1)[-1]
    text = text.lstrip("!")
    if name in ("pep", "rfc"):
        return f"{name.upper()} {text}"
    return f"`{text}`" if name in _MYST_CODE_ROLES and not titled else text


_OBJECT_KINDS = frozenset(kind for kinds in SPHINX_OBJECTS.values() for kind in kinds)


def signature_shown(kind: str, signature: str) -> str:
    """An object's signature as Sphinx prints it ("class Fernet(key)", "@cached")."""
    return _SIGNATURE_LEADS.get(kind, "{}").format(signature)


def _signature_of(kind: str, info: str) -> str:
    """The signature a MyST object directive's fence opens with ("{py:class} Fernet(key)"), shown;
    "" when it gives none."""
    signature = info.strip().split("}", 1)[1].strip()
    return signature_shown(kind, signature) if signature else ""


def _myst_directive(info: str) -> str | None:
    """The name of the MyST directive a fence opens ("{note}" → "note"), None for code."""
    found = re.match(r"\{([\w:-]+)\}", info.strip())
    return unprefixed(found.group(1)) if found else None


def is_address(text: str) -> bool:
    return _ADDRESS.fullmatch(text.strip()) is not None


def _is_link(match: re.Match[str], references: frozenset[str]) -> bool:
    if match["target"] is not None:
        return True
    label = match["label"] or match["text"]  # "[text][]" and "[text]" use the text as label
    return " ".join(label.split()).upper() in references


def plain_text(markdown: str) -> str:
    """Heading or inline markdown → the text a reader sees: emphasis, links and tags read as
    their text, code as written (`__init__`, `*args`), images and footnote markers as nothing."""
    text = re.sub(_ROLE, lambda role: role_shown(role["role"], role["role_text"]), markdown)
    tokens = _md.parseInline(with_names_as_code(text), {})
    return "".join(_inline_text(child) for child in tokens[0].children or []).strip()


def _inline_text(token: Token) -> str:
    if token.type in ("text", "code_inline"):
        return token.content
    return " " if token.type in ("softbreak", "hardbreak") else ""


def first_heading(body: str, level: int | None = 1) -> str | None:
    """The text of the body's first heading of `level` (of any level when None)."""
    tokens = _md.parse(body)
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and (level is None or token.tag == f"h{level}"):
            return plain_text(split_custom_id(tokens[i + 1].content)[0])
    return None


def page_kind(source_path: str, tags: list[str], title: str = "", headings: Sequence[str] = ()) -> PageKind:
    """`headings`: the page's section headings (a changelog's are its releases)."""
    name = PurePosixPath(source_path).name.lower()
    parts = PurePosixPath(source_path.lower()).with_suffix("").parts
    if (".summary." in name or _CHANGELOG_TITLE.fullmatch(title.strip()) or any(map(_CHANGELOG_NAME.fullmatch, parts))
            or _lists_releases(headings)):
        return "summary"
    if "quiz" in name or "quiz" in tags:
        return "quiz"
    if is_index_page(source_path):
        return "index"
    return "lesson"


# A changelog restates, release by release, what the pages about each feature say in full: by
# its file or folder's name (one that only says "changes" may be an API's, SQLite's
# c3ref/changes.html), else by its title.
_CHANGELOG_NAME = re.compile(r"change-?log|whats-?new|release-?notes|releaselog|(?:old)?news")
_CHANGELOG_TITLE = re.compile(
    r"(?:changes|change ?log|news|release (?:notes|history)|what[’']?s new\b.*)", re.IGNORECASE
)


# A release as a changelog heads it: "1.3.3 (2024-10-25)", "Version 4.6.2", "v2.0.1 - 2024-05-28"
# (not a numbered section, "2.1 Installation", whose number is followed by its words).
_RELEASE = re.compile(r"(?:v|version\s+|release\s+)?\d+(?:\.\d+)+[a-z0-9.+-]*(?:\s*\(.*\)|\s+[-–—]\s+.*)?", re.IGNORECASE)
RELEASES = 3  # release headings a page needs, most of its headings being releases, to be a changelog


def _lists_releases(headings: Sequence[str]) -> bool:
    """Whether the page is a changelog by its structure: under whatever file name and title
    ("Version Changes", "Change history for Celery 3.1"), most of its sections are releases."""
    releases = sum(bool(_RELEASE.fullmatch(heading.strip())) for heading in headings)
    return releases >= RELEASES and releases > len(headings) / 2


def titled_kind(title: str) -> PageKind:
    """A chapter's kind from its title, as a file's from its name (a PDF's chapters have no file
    of their own): "Module 1 Quiz: …" is a quiz, "Lesson 4 Summary: …" or "Lesson 2 Recap" a
    summary."""
    words = set(re.findall(r"[a-z]+", title.lower()))
    if words & {"quiz", "quizzes"}:
        return "quiz"
    if words & {"summary", "recap"} or _CHANGELOG_TITLE.fullmatch(title.strip()):
        return "summary"
    return "lesson"


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def parse_blocks(source: str, body_start: int, body_end: int | None = None) -> list[Block]:
    """Top-level markdown blocks of the body (to `body_end`), with MDX statements, comments,
    tags, images and admonition fences dropped and links reduced to their text (code is left
    as written); a sphinx-design container's blocks in its place."""
    body = source[body_start:body_end]
    # Line breaks as markdown-it counts them (str.splitlines also splits at U+2028, \f, …).
    line_starts = [0] + [m.end() for m in re.finditer(r"\r\n?|\n", body)]
    if line_starts[-1] < len(body):
        line_starts.append(len(body))
    env: dict = {}
    tokens = _md.parse(body, env)
    references = frozenset(env.get("references", {}))
    blanked, signatures = _without_colon_fences(body, tokens, line_starts)
    if blanked != body:
        body, tokens = blanked, _md.parse(blanked, {})
    footnotes = frozenset(key.removeprefix(":") for key in env.get("footnotes", {}).get("refs", {}))
    blocks: list[Block] = []
    notes: list[Block] = []
    comment_end = ""  # set while inside a comment that spans blocks
    collapsibles = _Collapsibles()
    opener = False  # the block before was an admonition's opener
    for i, token in enumerate(tokens):
        if token.type == "footnote_open":
            notes.extend(_footnote_blocks(tokens, i, body, body_start, line_starts))
            continue
        if token.level != 0 or token.map is None or token.nesting == -1:
            continue
        after_opener, opener = opener, False
        first, last = token.map
        start, end = line_starts[first], line_starts[min(last, len(line_starts) - 1)]
        raw = body[start:end].rstrip("\n")
        kind, level = "text", 0
        if token.type == "heading_open":
            kind, level = "heading", int(token.tag[1])
            raw = tokens[i + 1].content
        elif token.type == "code_block" and after_opener:
            raw = textwrap.dedent(raw)  # an MkDocs admonition's body: prose, not code
        elif token.type == "fence" and (directive := _myst_directive(token.info)) is not None:
            if directive in _MYST_CODE:
                kind = "fence"
            elif directive in _MYST_CONTAINERS or directive in _OBJECT_KINDS:
                inner = body_start + line_starts[min(first + 1, len(line_starts) - 1)]
                closed = re.fullmatch(r"[ \t]*(?::{3,}|`{3,})[ \t]*", body[line_starts[last - 1] : end].strip("\n"))
                inner_end = body_start + (line_starts[last - 1] if closed and last - 1 > first else end)
                options = _YAML_OPTIONS.match(source[inner:inner_end]) or _DIRECTIVE_OPTIONS.match(source[inner:inner_end])
                signature = _signature_of(directive, token.info) if directive in _OBJECT_KINDS else ""
                if signature:  # it heads its body, as the built page's <dt class="sig">
                    blocks.append(Block("text", body_start + start, inner, signature))
                inner += options.end() if options else 0
                blocks.extend(parse_blocks(source, inner, inner_end))
                continue
            elif directive in _MYST_PROSE:
                # its body, as prose
                options = _DIRECTIVE_OPTIONS.match(token.content)
                raw = without_pointers(token.content[options.end() if options else 0 :], references)
            else:
                continue
        elif token.type in ("fence", "code_block"):
            kind = "fence"
        elif token.type == "table_open":
            kind = "table"
        elif token.type in ("bullet_list_open", "ordered_list_open", "blockquote_open"):
            raw = without_pointers(raw, references)
        elif token.type == "html_block":
            kind = "html"
        holder = collapsibles.read(raw) if kind == "html" else collapsibles.open
        if kind == "html":
            raw = _COLLAPSIBLE.sub("", raw)
        if kind == "text" and _MDX_STATEMENT.match(raw):
            continue  # MDX reads a whole paragraph that starts with import/export as ESM
        if kind in ("text", "html"):
            if comment_end:
                _, closed, raw = raw.partition(comment_end)
                if not closed:
                    continue
                comment_end = ""
            raw = _COMMENT.sub("", raw)
            opened = [(raw.find(mark), mark) for mark in _COMMENTS if mark in raw]
            if opened:
                at, mark = min(opened)
                raw, comment_end = raw[:at], _COMMENTS[mark]
            opener = kind == "text" and bool(_ADMONITION_FENCE.fullmatch(raw.strip() + "\n"))
            raw = as_shown(raw, references, footnotes).strip()
            if not raw:
                labelled = blocks and _LABEL_PARAGRAPH.fullmatch(blocks[-1].text)
                if token.type.endswith("list_open") and labelled:
                    blocks.pop()  # "**Articles**" over a list of links only: a label of nothing
                continue
        elif kind == "table":
            raw = as_shown(raw, references, footnotes)
        number, summary = holder or (0, "")
        blocks.append(Block(kind, body_start + start, body_start + end, raw, level, collapsible=number, summary=summary))
    # a signature heads the paragraph its opener starts (a stable sort keeps it first)
    placed_apart = [replace(sig, start=body_start + sig.start, end=body_start + sig.end) for sig in signatures] + notes
    return sorted(placed_apart + blocks, key=lambda block: block.start) if placed_apart else blocks


def _without_colon_fences(body: str, tokens: list[Token], line_starts: list[int]) -> tuple[str, list[Block]]:
    """The body with the colon-fence markup markdown-it would misread blanked (its characters
    made spaces, so every offset holds), and the signatures object directives' openers show, as
    blocks at their place. Misread are: a YAML option block (`---` … `---`) under an opener, read
    as setext headings; an opener right under a paragraph's line, with its option lines, read as
    that paragraph's continuation, which would join the directive's body to it (not in a list
    item, whose text would keep the blanks). Other fence lines stay: a line of their own ends a
    list before them, and `as_shown` drops them (blanked, two lists on either side of a fence
    would read as one)."""
    in_code = {number for token in tokens if token.type in ("fence", "code_block", "html_block") and token.map
               for number in range(*token.map)}
    spans = list(pairwise(line_starts))
    lines = [body[start:end].rstrip("\r\n") for start, end in spans]
    blanks: list[tuple[int, int]] = []
    signatures: list[Block] = []
    for number, line in enumerate(lines):
        if number in in_code or not _COLON_OPENER.fullmatch(line):
            continue
        start, after = spans[number]
        info = line.lstrip(" \t:")
        directive = _myst_directive(info)
        if directive in _OBJECT_KINDS and (shown := _signature_of(directive, info)):
            signatures.append(Block("text", start, start + len(line), shown))
        interrupts = number > 0 and lines[number - 1].strip() and number - 1 not in in_code and not line[0].isspace()
        yaml = _YAML_OPTIONS.match(body, after)
        options = yaml or (_DIRECTIVE_OPTIONS.match(body, after) if interrupts else None)
        if interrupts:
            blanks.append((start, after))
        if options:
            blanks.append((after, options.end()))
    pieces, at = [], 0
    for start, end in sorted(blanks):
        start = max(start, at)
        pieces += [body[at:start], re.sub(r"[^\r\n]", " ", body[start:end])]
        at = max(at, end)
    return "".join(pieces) + body[at:], signatures


class _Collapsibles:
    """The `<details>` a page's HTML blocks open and close, numbered in the page's order."""

    def __init__(self) -> None:
        self.opened: list[tuple[int, str]] = []  # (number, summary), the innermost last
        self.count = 0

    @property
    def open(self) -> tuple[int, str] | None:
        return self.opened[-1] if self.opened else None

    def read(self, html: str) -> tuple[int, str] | None:
        """Follows the block's tags; returns the collapsible its text is in (the innermost one
        open in it), None outside any."""
        holder = self.open
        for tag in _COLLAPSIBLE.finditer(html):
            if tag["summary"] is not None and self.opened:
                self.opened[-1] = (self.opened[-1][0], plain_text(" ".join(tag["summary"].split())))
                holder = self.opened[-1]
            elif tag[0][1] != "/" and tag["summary"] is None:
                self.count += 1
                self.opened.append((self.count, ""))
                holder = self.opened[-1]
            elif tag[0][1] == "/" and self.opened:
                self.opened.pop()
        return holder


def _footnote_blocks(tokens: list[Token], opened: int, body: str, body_start: int, line_starts: list[int]) -> list[Block]:
    """The blocks of the footnote whose definition `tokens[opened]` opens, at the place it is
    written: its text without its "[^label]:" and the indent of its continuation lines."""
    lines = []
    for token in tokens[opened + 1 :]:
        if token.type == "footnote_close":
            break
        if token.map is not None:
            lines += token.map
    if not lines:
        return []
    start, end = line_starts[min(lines)], line_starts[min(max(lines), len(line_starts) - 1)]
    first, *rest = _FOOTNOTE_LABEL.sub("", body[start:end]).split("\n")
    note = "\n".join([first, *(re.sub(r"^(?: {1,4}|\t)", "", line) for line in rest)])
    return [replace(block, start=body_start + start, end=body_start + end) for block in parse_blocks(note, 0)]


def drop_unanswered_questions(blocks: list[Block]) -> tuple[list[Block], int]:
    """Quiz pages: keep question-and-answer content, drop questions that have no answer.

    A question is answered by an answer inside it (a collapsible's body, "Answer: …") or by an
    entry with the same number under an answer-key heading further down the page.
    """
    units: list[tuple[str | None, list[Block]]] = [(None, [])]
    answered: set[str] = set()
    in_answer_key = False
    for block in blocks:
        text = plain_text(block.text)
        question = _QUIZ_QUESTION.match(text) if block.kind in ("heading", "text") else None
        if block.kind == "heading":
            in_answer_key = "answer" in text.lower()
        if question:
            number = re.sub(r"\D", "", question.group(0))
            units.append((number, []))
            if in_answer_key:
                answered.add(number)
        elif block.kind == "heading":
            units.append((None, []))
        units[-1][1].append(block)
        number = units[-1][0]
        if number and block is not units[-1][1][0] and (block.collapsible or _QUIZ_ANSWER.search(block.text)):
            answered.add(number)
    kept = [b for number, unit in units if number is None or number in answered for b in unit]
    dropped = {number for number, _ in units if number and number not in answered}
    return kept, len(dropped)


def sections_of(blocks: list[Block], slugger: HeadingSlugger | None = None, title: str = "") -> list[Section]:
    """Groups markdown blocks under their heading, whose anchor `slugger` makes (Docusaurus's
    by default), on a page titled `title`."""
    slugger = slugger or HeadingSlugger()
    return group_sections(
        [_named(block, slugger) if block.kind == "heading" else block for block in blocks], title
    )


def _named(heading: Block, slugger: HeadingSlugger) -> Block:
    """A markdown heading as the reader sees it, with its anchor."""
    text, _ = split_custom_id(heading.text)
    anchor = slugger.anchor(plain_text(heading.text))  # slugged as rendered: link text only
    return Block("heading", heading.start, heading.end, plain_text(text), heading.level, anchor)


def group_sections(blocks: list[Block], title: str = "") -> list[Section]:
    """Groups blocks under their heading (headings hold their plain text and anchor); the page's
    H1 is its title, not a section. A page of several level-1 headings uses them for sections
    ("1. Overview", "2. How WAL Works" under a title set apart; "# License" after a README's
    "# Widget"): from the first that does not say the page's `title`, its headings are read one
    level down, so that each names its section."""
    level_ones = [i for i, block in enumerate(blocks) if block.kind == "heading" and block.level == 1]
    sections_from = next((i for i in level_ones if blocks[i].text.casefold() != title.casefold()), None)
    if len(level_ones) > 1 and sections_from is not None:
        blocks = blocks[:sections_from] + [
            replace(b, level=min(b.level + 1, 6)) if b.kind == "heading" else b for b in blocks[sections_from:]
        ]
    stack: list[tuple[int, str]] = []
    sections = [Section(path=[], heading="", anchor="")]
    for block in blocks:
        if block.kind != "heading":
            sections[-1].blocks.append(block)
            continue
        heading = block.text
        if block.level == 1:
            sections.append(Section(path=[], heading="", anchor=""))
            sections[-1].blocks.append(
                Block("heading", block.start, block.end, f"# {with_names_as_code(heading)}", page=block.page)
            )
            continue
        while stack and stack[-1][0] >= block.level:
            stack.pop()
        stack.append((block.level, heading))
        section = Section([h for _, h in stack], heading, block.anchor)
        section.blocks.append(
            Block("heading", block.start, block.end, f"{'#' * block.level} {with_names_as_code(heading)}", block.level,
                  page=block.page)
        )
        sections.append(section)
    return [s for s in sections if any(b.kind != "heading" for b in s.blocks)]


def _split_block(block: Block) -> list[Block]:
    """A paragraph or list longer than the budget, cut at sentence ends; a code block or a table
    longer than MAX_BLOCK_TOKENS, cut into blocks of its kind (see _split_long)."""
    if block.kind in ("fence", "table"):
        return _split_long(block)
    if estimate_tokens(block.text) <= MAX_TOKENS:
        return [block]
    gaps = list(_SENTENCE_END.finditer(block.text))
    starts = [0] + [gap.end() for gap in gaps]
    ends = [gap.start() for gap in gaps] + [len(block.text)]
    parts: list[Block] = []
    first = 0
    for last in range(1, len(starts)):
        if estimate_tokens(block.text[starts[first] : ends[last]]) > MAX_TOKENS:
            parts.append(_part_of(block, starts[first], ends[last - 1]))
            first = last
    parts.append(_part_of(block, starts[first], len(block.text)))
    return [piece for part in parts for piece in _split_long(part)]


_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_LINE_END = re.compile(r"\n")
_SPACE = re.compile(r"\s+")


def _split_long(block: Block) -> list[Block]:
    """A block longer than MAX_BLOCK_TOKENS as blocks of the budget: a code block's lines as code
    blocks of its language, cut at blank lines, else at line ends; a table's rows under its
    header rows (when those take at most half the budget); prose (a sentence that never ends)
    at line ends, else at spaces."""
    if estimate_tokens(block.text) <= MAX_BLOCK_TOKENS:
        return [block]
    lines = block.text.split("\n")
    head, foot, cuts = "", "", (_LINE_END, _SPACE)
    if block.kind == "fence":
        fenced = len(lines) > 2 and _FENCE_LINE.match(lines[0]) and _FENCE_LINE.match(lines[-1])
        head, foot = (lines[0] + "\n", "\n" + lines[-1]) if fenced else ("", "")
        cuts = (_BLANK_LINE, _LINE_END, _SPACE)
    elif block.kind == "table":
        header = "\n".join(lines[:2]) + "\n"
        # Repeated over each part's rows, unless it would fill them: a layout table's first row
        # can hold a whole index (yodl's), which is read once and cut as the rows are.
        head = header if len(header) <= CHARS_PER_TOKEN * MAX_TOKENS // 2 else ""
    body_start = len(head)
    body_end = len(block.text) - len(foot)
    limit = CHARS_PER_TOKEN * MAX_TOKENS - len(head) - len(foot)
    parts: list[Block] = []
    for start, end in _spans(block.text, body_start, body_end, max(limit, CHARS_PER_TOKEN * MIN_TOKENS), cuts):
        piece = block.text[start:end].strip("\n")
        if piece.strip():
            source_end = block.end if end == len(block.text) else block.start + end
            parts.append(replace(block, start=block.start + start, end=source_end, text=f"{head}{piece}{foot}"))
    return parts


def _spans(text: str, start: int, end: int, limit: int, cuts: Sequence[re.Pattern[str]]) -> list[tuple[int, int]]:
    """text[start:end] as spans of at most `limit` characters, each ending at the last match in
    it of the first of `cuts` that has one (else at the limit)."""
    spans: list[tuple[int, int]] = []
    while end - start > limit:
        stop = start + limit
        for cut in cuts:
            matches = [match.end() for match in cut.finditer(text, start + 1, stop)]
            if matches:
                stop = matches[-1]
                break
        spans.append((start, stop))
        start = stop
    spans.append((start, end))
    return spans


def _part_of(block: Block, start: int, end: int) -> Block:
    """Characters start:end of a block's text; offsets in the source as the text maps there
    (exact for plain paragraphs, the block's own end for its last part)."""
    source_end = block.end if end == len(block.text) else block.start + end
    return Block(block.kind, block.start + start, source_end, block.text[start:end], page=block.page)


def _pack(section: Section) -> list[list[Block]]:
    """Splits a section into parts of even size, never inside a fence or a table, nor across a
    PDF's page break (see _page_runs)."""
    blocks = [part for block in section.blocks for part in _split_block(block)]
    return [part for run in _page_runs(blocks) for part in _even_parts(run)]


def _page_runs(blocks: list[Block]) -> list[list[Block]]:
    """A PDF section's blocks by the page they are on, so that a passage, and the page its
    citation opens, is one page: a run smaller than MIN_TOKENS goes on with the next page's
    (the last one joins the run before it). A site's page is one run."""
    runs: list[list[Block]] = [[]]
    size = 0
    for block in blocks:
        if runs[-1] and block.page != runs[-1][-1].page and size >= MIN_TOKENS:
            runs.append([])
            size = 0
        runs[-1].append(block)
        size += estimate_tokens(block.text)
    if len(runs) > 1 and size < MIN_TOKENS:
        runs[-2].extend(runs.pop())
    return runs


def _even_parts(blocks: list[Block]) -> list[list[Block]]:
    total = sum(estimate_tokens(b.text) for b in blocks)
    target = total / max(1, math.ceil(total / MAX_TOKENS))
    parts: list[list[Block]] = [[]]
    size = 0
    for block in blocks:
        tokens = estimate_tokens(block.text)
        if parts[-1] and size + tokens > target * 1.15 and size >= MIN_TOKENS:
            parts.append([])
            size = 0
        parts[-1].append(block)
        size += tokens
    return parts


def _overlap(previous: list[Block]) -> str:
    last = previous[-1]
    if last.kind in ("fence", "table", "heading"):
        return ""
    sentences = _SENTENCE_END.split(last.text)
    return " ".join(sentences[-OVERLAP_SENTENCES:])


def _fold_small_sections(sections: list[Section]) -> list[Section]:
    """A tiny section (a one-line intro) is read with the section after it."""
    folded: list[Section] = []
    carry: list[Block] = []
    for i, section in enumerate(sections):
        blocks = carry + section.blocks
        size = sum(estimate_tokens(b.text) for b in blocks if b.kind != "heading")
        if size < MIN_TOKENS and i + 1 < len(sections):
            carry = blocks
            continue
        carry = []
        folded.append(Section(section.path, section.heading, section.anchor, blocks))
    return folded


def chunk_page(
    source: str,
    source_path: str,
    *,
    book: str,
    module: str,
    url: str,
    lesson_id: str,
    front_matter: dict,
    body_start: int,
    slugger: HeadingSlugger | None = None,
    title_from_any_heading: bool = False,
) -> ParsedPage:
    """`slugger` makes heading anchors as the site's generator does; without a front matter
    title, the page's `#` heading is its title, or its first heading of any level when
    `title_from_any_heading`."""
    tags = _string_list(front_matter.get("tags"))
    body = source[body_start:]
    heading = first_heading(body, None if title_from_any_heading else 1)
    title = str(front_matter.get("title") or heading or humanize(source_path))
    blocks = parse_blocks(source, body_start)
    headings = [plain_text(split_custom_id(b.text)[0]) for b in blocks if b.kind == "heading"]
    kind = page_kind(source_path, tags, title, headings)
    page = Page(
        book=book,
        lesson_id=lesson_id,
        source_path=source_path,
        title=title,
        module=module,
        url=url,
        kind=kind,
        description=str(front_matter.get("description") or ""),
        tags=tags,
        objectives=_string_list(front_matter.get("learning_objectives"), key="objective"),
        skills=_string_list(front_matter.get("skills"), key="name"),
    )
    dropped = 0
    if kind == "quiz":
        blocks, dropped = drop_unanswered_questions(blocks)
    slugger = slugger or HeadingSlugger()
    return ParsedPage(page, chunks_of(sections_of(blocks, slugger, page.title), page, slugger.link), dropped)


def chunks_of(
    sections: list[Section], page: Page, link: Callable[[str, str], str] | None = None
) -> list[Chunk]:
    """The page's passages: a tiny section is read with the next one, a long one is cut into
    parts of even size, each part after the first opening with the last sentence before it.
    `link` makes a section's URL from the page's and the section's anchor (`page#anchor` by
    default)."""
    link = link or HeadingSlugger().link
    chunks: list[Chunk] = []
    for section in _fold_small_sections(sections):
        previous: list[Block] | None = None
        for part in _pack(section):
            text = "\n\n".join(b.text for b in part)
            overlap = _overlap(previous) if previous else ""
            if overlap:
                text = f"{overlap}\n\n{text}"
            page_starts = _page_starts(part, len(overlap) + 2 if overlap else 0, previous)
            collapsibles = _collapsibles(part, len(overlap) + 2 if overlap else 0)
            previous = part
            chunks.append(
                Chunk(
                    book=page.book,
                    lesson_id=page.lesson_id,
                    source_path=page.source_path,
                    module=page.module,
                    lesson=page.title,
                    section=" › ".join(section.path),
                    heading=section.heading,
                    anchor=section.anchor,
                    url=link(page.url, section.anchor),
                    kind=page.kind,
                    tags=page.tags,
                    position=len(chunks),
                    text=text,
                    overlap_chars=len(overlap) + 2 if overlap else 0,
                    start=part[0].start,
                    end=part[-1].end,
                    page_starts=page_starts,
                    collapsibles=collapsibles,
                )
            )
    return chunks


def _page_starts(part: list[Block], offset: int, previous: list[Block] | None) -> list[tuple[int, int]]:
    """Where each PDF page's text begins in a passage whose own text starts at `offset` (after
    the sentence it repeats from `previous`)."""
    starts: list[tuple[int, int]] = []
    if offset and previous and previous[-1].page:
        starts.append((0, previous[-1].page))
    for block in part:
        if block.page and (not starts or starts[-1][1] != block.page):
            starts.append((offset, block.page))
        offset += len(block.text) + 2
    return starts


def _collapsibles(part: list[Block], offset: int) -> list[tuple[int, int, str]]:
    """Where the bodies of collapsibles are in a passage whose own text starts at `offset`:
    (start, end, summary) of each run of blocks of one collapsible."""
    runs: list[tuple[int, int, str]] = []
    previous = 0
    for block in part:
        end = offset + len(block.text)
        if block.collapsible and block.collapsible == previous:
            runs[-1] = (runs[-1][0], end, block.summary)
        elif block.collapsible:
            runs.append((offset, end, block.summary))
        previous = block.collapsible
        offset = end + 2
    return runs


def _string_list(value: object, key: str | None = None) -> list[str]:
    """Front matter lists of strings or of mappings (`- objective: …`) → strings."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        return []
    items = []
    for item in value:
        if isinstance(item, dict) and key:
            item = item.get(key)
        if item is not None and not isinstance(item, dict | list):
            items.append(str(item))
    return items


def humanize(source_path: str) -> str:
    """A title from a file or folder name: `02-getting_started.md` → "Getting started"."""
    stem = PurePosixPath(source_path).name.split(".")[0]
    return strip_number_prefix(stem).replace("-", " ").replace("_", " ").strip().capitalize()
