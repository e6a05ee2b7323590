"""reStructuredText pages of a Sphinx project → what their built pages say.

docutils, the parser Sphinx itself uses, reads the page. What Sphinx adds to reST and plain
docutils does not know is read as Sphinx shows it: a cross-reference role (`:func:`,
`:ref:`, `:py:class:` …) as its text, as code for a program's objects, as the MyST reader
shows roles (markdown.role_shown); a prose directive (versionadded, seealso, glossary, only …)
as its content; an object a domain describes (`.. class::`, `.. c:function::`, `.. option::`)
as its signature heading its content, and a doctest example as code; the others (toctree,
autodoc, index …) as nothing, since what they show is not in the page's source. The page is
then written as HTML and read as a built page is (html_site.read_page), so its title, blocks
and section ids are those the build has: Sphinx's ids are docutils' ids.
"""

import ast
import posixpath
import re
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from docutils import nodes
from docutils.core import publish_doctree, publish_from_doctree
from docutils.parsers.rst import Directive, directives, roles
from docutils.parsers.rst.directives.misc import Include
from docutils.parsers.rst.languages import en
from docutils.utils import Reporter
from docutils.writers.html5_polyglot import HTMLTranslator, Writer

from ingest_scripts.html_site import HtmlPage, chunk_html_page, read_page
from ingest_scripts.layouts import REST_TITLE, doc_target
from ingest_scripts.markdown import (
    DOCTEST_LANGUAGE,
    SPHINX_OBJECTS,
    ParsedPage,
    role_shown,
    signature_shown,
    unprefixed,
)

# Sphinx's file-wide metadata: a field list that opens the file (":orphan:", ":tocdepth: 2").
_FILE_METADATA = re.compile(r"\A(?:[ \t]*:[\w-]+:[^\n]*\n)+")
_LABEL = re.compile(r"^\.\. _(?P<label>[^:\n]+):[ \t]*\n(?:[ \t]*\n)*(?P<rest>(?:[^\n]*\n){2})", re.MULTILINE)
_ROLE_NAME = re.compile(r"(?<![\w`\\]):(?P<name>[A-Za-z][\w.+-]*(?::[A-Za-z][\w.+-]*)*):`")
_SETTINGS = {
    "report_level": Reporter.SEVERE_LEVEL + 1,  # what docutils cannot read is left out, silently
    "halt_level": Reporter.SEVERE_LEVEL + 1,
    # `.. raw:: :file:` and `.. csv-table:: :file:` read no other file; `.. include::` reads
    # one of the book's own (_Include)
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "syntax_highlight": "none",
    "input_encoding": "unicode",
    "output_encoding": "unicode",
    "embed_stylesheet": False,
    "stylesheet_path": "",
    "_disable_config": True,  # no docutils.conf of the machine changes how a page reads
    "auto_id_prefix": "id",  # a title used twice gets `id1`, as Sphinx sets it (docutils: `%`)
}
# What Sphinx prints before a version directive's text.
_VERSION_LEADS = {
    "versionadded": "Added in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "versionremoved": "Removed in version",
}


class _AnyOptions(dict[str, object]):
    """A directive's option spec that takes any option and keeps its value as written."""

    def __bool__(self) -> bool:  # docutils reads options only when the spec is truthy
        return True

    def __contains__(self, name: object) -> bool:
        return True

    def __getitem__(self, name: str) -> object:
        return directives.unchanged


class _SphinxDirective(Directive):
    """A directive Sphinx adds: content, one argument (spaces and all), any option."""

    has_content = True
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec: ClassVar[dict[str, object]] = _AnyOptions()


class _Prose(_SphinxDirective):
    """A Sphinx directive whose content is prose the page shows (a version note leads with
    what Sphinx prints before it)."""

    def run(self) -> list[nodes.Node]:
        if self.name == "only" and not _in_html(self.arguments[0] if self.arguments else ""):
            return []
        container = nodes.container()
        if self.arguments and self.name in ("seealso", "centered"):  # their argument is text
            container += nodes.paragraph(text=self.arguments[0])
        self.state.nested_parse(self.content, self.content_offset, container)
        return [container]


def _in_html(expression: str) -> bool:
    """Whether an `.. only::` expression holds in an HTML build: the tags `html`,
    `format_html` and `builder_html` are set, any other is not ("html and not epub")."""
    try:
        tree = ast.parse(expression.strip() or "False", mode="eval")
    except SyntaxError:
        return False

    def holds(node: ast.expr) -> bool:
        if isinstance(node, ast.BoolOp):
            values = [holds(value) for value in node.values]
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not holds(node.operand)
        return isinstance(node, ast.Name) and node.id in ("html", "format_html", "builder_html")

    return holds(tree.body)


class _VersionChange(_Prose):
    """`.. versionadded:: 2.1 What changed`, shown "Added in version 2.1: What changed"."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        version, *said = self.arguments
        text = f"{_VERSION_LEADS[self.name]} {version}" + (f": {' '.join(said[0].split())}" if said else ".")
        container = nodes.container("", nodes.paragraph(text=text))
        self.state.nested_parse(self.content, self.content_offset, container)
        return [container]


class _ObjectDescription(_SphinxDirective):
    """A program object a Sphinx domain describes (`.. class:: Fernet(key)`, `.. c:function::`,
    `.. option:: --verbose`): its signatures, one a line, head its content as the built page's
    `<dl><dt class="sig">` does (html_site reads them so)."""

    def run(self) -> list[nodes.Node]:
        signatures = [line.strip() for line in (self.arguments[0] if self.arguments else "").splitlines()]
        kind = unprefixed(self.name)
        item = nodes.definition_list_item()
        item += [nodes.term(text=signature_shown(kind, signature), classes=["sig"]) for signature in signatures if signature]
        definition = nodes.definition()
        self.state.nested_parse(self.content, self.content_offset, definition)
        item += definition
        return [nodes.definition_list("", item)]


class _Doctest(_SphinxDirective):
    """An example Sphinx's doctest extension shows as code (`.. doctest::`, `.. testcode::`)."""

    def run(self) -> list[nodes.Node]:
        code = "\n".join(self.content)
        language = f"highlight-{DOCTEST_LANGUAGE[self.name]}"  # the class the built page's <div> has
        return [nodes.literal_block(code, code, classes=[language])] if code.strip() else []


for _name in (
    "seealso", "glossary", "only", "centered", "hlist", "tab", "tabs", "tab-set", "tab-item",
    "group-tab", "card", "dropdown", "grid", "grid-item", "grid-item-card",
):
    directives.register_directive(_name, _Prose)
for _name in _VERSION_LEADS:
    directives.register_directive(_name, _VersionChange)
for _domain, _kinds in SPHINX_OBJECTS.items():
    for _kind in _kinds:
        directives.register_directive(f"{_domain}:{_kind}", _ObjectDescription)
        if _domain in ("py", "std"):
            directives.register_directive(_kind, _ObjectDescription)
for _name in DOCTEST_LANGUAGE:
    directives.register_directive(_name, _Doctest)


# What one page may pull in with `.. include::`, counted by the files' sizes: a few files that
# each include the next several times (clipped differently, so none is a loop) would otherwise
# grow without bound.
MAX_INCLUDED_CHARS = 4_000_000


class _Include(Include):
    """`.. include::` as Sphinx reads it (a path from "/" is from the project's source folder),
    of a file inside the book's folder (none hidden, as `.git/config` or `.env`) or one of
    docutils' own substitution sets (`<isonum.txt>`); any other is left out. Sphinx projects pull
    a command's reference, a shared list of links or an example into their pages so. No other
    parser (it would read with files let in) and no tab width (a wide one would expand a small
    file without bound): an option it does not take leaves the include out."""

    option_spec: ClassVar[dict[str, object]] = {
        name: kind for name, kind in Include.option_spec.items() if name not in ("parser", "tab-width")
    }

    def run(self) -> list[nodes.Node]:
        if _inclusion.get() is None:
            raise self.warning(f'"{self.name}": no book folder to read it from')
        settings = self.state.document.settings
        allowed = settings.file_insertion_enabled
        settings.file_insertion_enabled = True  # for this directive only: what it inserts is read later
        try:
            return super().run()
        finally:
            settings.file_insertion_enabled = allowed

    def read_file(self, path: object) -> str:
        inclusion, target = _inclusion.get(), Path(str(path)).resolve()
        if inclusion is None or not inclusion.allows(target):
            raise self.warning(f'"{self.name}" of a file outside the book')
        size = target.stat().st_size
        if size > inclusion.left:
            raise self.warning(f'"{self.name}": the page pulls in too much')
        inclusion.left -= size  # the whole file, whatever part of it is kept
        self.options.setdefault("encoding", "utf-8")  # the page itself comes decoded ("unicode")
        text = super().read_file(target)
        _register_roles(text)
        return text


@dataclass
class _Inclusion:
    """What the page being read may include: files of `folder`, `left` characters more."""

    folder: Path
    left: int = MAX_INCLUDED_CHARS

    def allows(self, target: Path) -> bool:
        if not target.is_file():
            return False
        if target.is_relative_to(Include.standard_include_path.resolve()):
            return True
        return target.is_relative_to(self.folder) and not any(
            part.startswith(".") for part in target.relative_to(self.folder).parts
        )


directives.register_directive("include", _Include)
_inclusion: ContextVar[_Inclusion | None] = ContextVar("rest_inclusion", default=None)


class Titles:
    """What Sphinx shows for a cross-reference with no title of its own: the title of the page
    `:doc:` names, the title of the section a `:ref:` label stands before."""

    def __init__(self, sources: Mapping[str, str]):
        """`sources`: every reST page's text, by its docname ("a/b" for a/b.rst)."""
        self.pages = {doc: title["title"].strip() for doc, text in sources.items() if (title := REST_TITLE.search(text))}
        self.labels: dict[str, str] = {}
        for text in sources.values():
            for label in _LABEL.finditer(text):
                if title := REST_TITLE.match(label["rest"]):
                    self.labels[label["label"].strip().lower()] = title["title"].strip()

    def of(self, name: str, target: str, page: str) -> str | None:
        role = unprefixed(name)
        if role == "doc":
            return self.pages.get(doc_target(target, posixpath.dirname(page)))
        if role in ("ref", "any"):
            return self.labels.get(target.lower())
        return None


_page: ContextVar[tuple[Titles, str]] = ContextVar("rest_page")  # the book's titles, the page read


def _sphinx_role(name: str, rawtext: str, text: str, lineno: int, inliner: object,
                 options: dict | None = None, content: list | None = None) -> tuple[list[nodes.Node], list]:
    titles, page = _page.get((Titles({}), ""))
    untitled = "<" not in text
    shown = (untitled and titles.of(name, text.strip(), page)) or role_shown(name, text)
    if shown.startswith("`") and shown.endswith("`"):
        return [nodes.literal(rawtext, shown[1:-1])], []
    return [nodes.Text(shown)], []


def _register_roles(source: str) -> None:
    """Every role the page uses that docutils does not know is shown as Sphinx shows it."""
    quiet = Reporter("roles", Reporter.SEVERE_LEVEL + 1, Reporter.SEVERE_LEVEL + 1)
    for name in {match["name"] for match in _ROLE_NAME.finditer(source)}:
        if roles.role(name, en, 0, quiet)[0] is None:
            roles.register_local_role(name, _sphinx_role)


class _Translator(HTMLTranslator):
    """docutils' HTML, with inline literals as `<code>` (as Sphinx writes them), which the
    built-page reader shows as code."""

    def visit_literal(self, node: nodes.literal) -> None:
        self.body.append(f"<code>{self.encode(node.astext())}</code>")
        raise nodes.SkipNode


def read_rest(
    source: str, docname: str, titles: Titles | None = None, source_dir: Path | None = None,
    book_folder: Path | None = None,
) -> HtmlPage | None:
    """The page as its Sphinx build shows it, or None for a page with nothing to read (one
    that only holds a toctree). `titles` are the book's, for cross-references; `source_dir`,
    the Sphinx project's source folder (`docname` is the page's path in it, without the
    suffix), where the files the page includes are found; they are read from `book_folder`
    only (by default `source_dir`; no folder, no file)."""
    source = _FILE_METADATA.sub("", source)  # Sphinx takes it out before the page is read
    _register_roles(source)
    source_dir = source_dir.resolve() if source_dir is not None else None
    readable = book_folder.resolve() if book_folder is not None else source_dir
    inclusion = _Inclusion(readable) if readable is not None else None
    page, included = _page.set((titles or Titles({}), docname)), _inclusion.set(inclusion)
    settings = _SETTINGS | ({"root_prefix": str(source_dir)} if source_dir else {})
    try:
        path = str(source_dir / f"{docname}.rst") if source_dir else docname
        doctree = publish_doctree(source, source_path=path, settings_overrides=settings)
    finally:
        _page.reset(page)
        _inclusion.reset(included)
    writer = Writer()
    writer.translator_class = _Translator
    html = publish_from_doctree(doctree, writer=writer, settings_overrides=settings)
    return read_page(html)


def chunk_rest_page(
    source: str, source_path: str, docname: str, titles: Titles, *, book: str, module: str, url: str,
    lesson_id: str, source_dir: Path | None = None, book_folder: Path | None = None,
) -> ParsedPage | None:
    """The page's record and passages (None when it has nothing to read), as a built page's."""
    page = read_rest(source, docname, titles, source_dir, book_folder)
    if page is None:
        return None
    return chunk_html_page(
        page, source_path, book=book, module=module, url=url, lesson_id=lesson_id, is_index=False
    )
