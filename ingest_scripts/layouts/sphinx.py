"""Sphinx projects: `conf.py` read, not run; toctrees give order and modules; docutils' ids."""

import ast
import posixpath
import re
import textwrap
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from docutils.nodes import make_id

from ingest_scripts.layouts.base import SUFFIXES, Layout, LayoutError, published_files
from ingest_scripts.notebooks import NotebookError, notebook_markdown
from ingest_scripts.permalinks import HeadingSlugger


class DocutilsIds(HeadingSlugger):
    """A page's section ids as Sphinx gives them (docutils' make_id); a title used before gets
    docutils' page-wide `id1`, `id2`, … instead."""

    def __init__(self) -> None:
        super().__init__(make_id)
        self._numbered = 0

    def anchor(self, heading_text: str) -> str:
        slug = self._slug(heading_text.strip())
        if not slug or slug in self._seen:
            self._numbered += 1
            slug = f"id{self._numbered}"
        self._seen[slug] = 0
        return slug


_TOCTREE = re.compile(
    r"^[ \t]*(?P<fence>`{3,}|:{3,})\{toctree\}[^\n]*\n(?P<body>.*?)^[ \t]*(?P=fence)[`:]*[ \t]*$",
    re.DOTALL | re.MULTILINE,
)
_CODE_FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})(?!\{)[^\n]*\n.*?^[ \t]*(?P=fence)[`~]*[ \t]*$", re.DOTALL | re.MULTILINE)
_HEADING = re.compile(r"^#{1,6}[ \t]+(?P<title>.+?)[ \t]*#*[ \t]*$", re.MULTILINE)
_ENTRY_TARGET = re.compile(r"<([^<>]+)>\s*$")  # "Title <page>"
# reST: a toctree directive and its indented options and entries; a section title (its text
# over a line of one punctuation character).
_REST_TOCTREE = re.compile(
    r"^(?P<indent>[ \t]*)\.\.[ \t]+toctree::[ \t]*\n(?P<body>(?:(?:(?P=indent)[ \t]+\S[^\n]*)?\n)*)",
    re.MULTILINE,
)
REST_TITLE = re.compile(r"^(?P<title>\S[^\n]*)\n(?P<rule>[=\-~^\"'`#*+<>:._])(?P=rule){2,}[ \t]*$", re.MULTILINE)


class Sphinx(Layout):
    name = "sphinx"
    kind = "markdown or reStructuredText"

    def __init__(self, root: Path):
        super().__init__(root)
        self.docs = root / "docs" if (root / "docs" / "conf.py").is_file() and not (root / "conf.py").is_file() else root
        # A folder of reST sources without its conf.py is read with Sphinx's defaults.
        config = _literal_assignments(self.docs / "conf.py") if (self.docs / "conf.py").is_file() else {}
        extensions = config.get("extensions", [])
        if isinstance(extensions, list | tuple) and {"myst_nb", "nbsphinx"} & set(extensions):
            self.kind = "markdown, notebooks or reStructuredText"  # its notebooks are pages too
        patterns = config.get("exclude_patterns", [])
        self.excluded = [
            sphinx_pattern(p) for p in patterns if isinstance(p, str)
        ] if isinstance(patterns, list | tuple) else []
        self.root_doc = str(config.get("root_doc") or config.get("master_doc") or "index")
        self._files = {
            path.relative_to(self.docs).as_posix(): path
            for path in published_files(self.docs, SUFFIXES[self.kind])
            if not excluded(path.relative_to(self.docs).as_posix(), self.excluded)
        }
        self._docnames = {_docname(rel): rel for rel in self._files}
        self.order: list[str] = []  # docnames ("a/b"), in the order the toctrees give
        self.modules: dict[str, str] = {}
        self._walk(self.root_doc, module=None)

    @staticmethod
    def found(root: Path) -> bool:
        """A conf.py in the folder or its `docs/`, or a folder of reStructuredText and neither
        markdown nor HTML pages: Sphinx's sources given without their configuration (a docs
        folder's pages copied out of their project)."""
        if (root / "conf.py").is_file() or (root / "docs" / "conf.py").is_file():
            return True
        pages = published_files(root, (".rst", *SUFFIXES["markdown"], *SUFFIXES["HTML"]))
        first = next(pages, None)  # the walk stops at the first page that is not reST
        return first is not None and first.suffix == ".rst" and all(path.suffix == ".rst" for path in pages)


    def pages(self, files: list[Path]) -> tuple[list[Path], list[Path]]:
        """Every markdown page the build makes: those the toctrees reach first, in order."""
        published = set(self._files.values())
        first = [self._files[self._docnames[doc]] for doc in self.order]
        rest = [p for p in files if p in published and p not in first]
        return [p for p in first if p in files] + rest, [p for p in files if p not in published]

    def _walk(self, doc: str, module: str | None) -> None:
        if doc in self.order or doc not in self._docnames:
            return
        self.order.append(doc)
        if module:
            self.modules[doc] = module
        path = self._files[self._docnames[doc]]
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".ipynb":
            try:
                text = notebook_markdown(text, path.relative_to(self.docs).as_posix())
            except NotebookError as exc:
                raise LayoutError(str(exc)) from exc
        if path.suffix == ".rst":
            headings, toctrees = list(REST_TITLE.finditer(text)), list(_REST_TOCTREE.finditer(text))
        else:
            # Code examples blanked (their "# comment" lines are no headings), lines kept.
            prose = _CODE_FENCE.sub(lambda code: "\n" * code[0].count("\n"), text)
            headings, toctrees = list(_HEADING.finditer(prose)), list(_TOCTREE.finditer(prose))
        for toctree in toctrees:
            caption, glob, entries = _toctree(textwrap.dedent(toctree["body"]))
            if doc == self.root_doc:  # the root's toctrees are the book's parts
                above = [h["title"].strip() for h in headings[1:] if h.start() < toctree.start()]
                module = caption or (above[-1] if above else None)
            for entry in entries:
                for child in self._resolve(entry, PurePosixPath(doc).parent, glob):
                    self._walk(child, module)

    def _resolve(self, entry: str, folder: PurePosixPath, glob: bool) -> list[str]:
        """The docnames a toctree entry names: relative to its page or `/` from the docs root,
        glob patterns (with `:glob:`) matched in name order as Sphinx matches them."""
        target = _docname(doc_target(entry, folder.as_posix()))
        if glob and any(ch in target for ch in "*?["):
            pattern = sphinx_pattern(target)
            return sorted(doc for doc in self._docnames if pattern.fullmatch(doc))
        return [target]

    def module_of(self, rel: str) -> str | None:
        return self.modules.get(_docname(rel))

    def url_path(self, rel: str, front_matter: dict) -> str:
        return "/" + quote(_docname(rel)) + ".html"

    def slugger(self) -> HeadingSlugger:
        return DocutilsIds()


def doc_target(reference: str, folder: str) -> str:
    """The document a toctree entry or a `:doc:` role names from a page in `folder`: relative
    to it, or from the docs root when it starts with `/`."""
    return reference[1:] if reference.startswith("/") else posixpath.normpath(posixpath.join(folder, reference))


def _docname(rel: str) -> str:
    suffix = PurePosixPath(rel).suffix
    return rel.removesuffix(suffix) if suffix in SUFFIXES["markdown, notebooks or reStructuredText"] else rel


def excluded(rel: str, patterns: list[re.Pattern[str]]) -> bool:
    """Sphinx matches `exclude_patterns` against a file's path and each of its folders'."""
    parts = rel.split("/")
    paths = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    return any(pattern.fullmatch(path) for pattern in patterns for path in paths)


def sphinx_pattern(pattern: str) -> re.Pattern[str]:
    """A Sphinx path pattern: `**` any path, `*` and `?` within one folder, `[…]` a class."""
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        elif pattern[i] == "[" and (close := pattern.find("]", i + 1)) > i:
            chars = pattern[i + 1 : close]
            out += "[^" + re.escape(chars[1:]) + "]" if chars.startswith("!") else "[" + re.escape(chars) + "]"
            i = close + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out)


def _toctree(body: str) -> tuple[str | None, bool, list[str]]:
    """A toctree directive's caption, whether it globs, and its entries; options are
    `:name: value` lines or a `---` YAML block."""
    lines = body.splitlines()
    options: dict[str, str] = {}
    if lines and lines[0].strip() == "---" and "---" in (line.strip() for line in lines[1:]):
        end = next(n for n, line in enumerate(lines[1:], start=1) if line.strip() == "---")
        for line in lines[1:end]:
            name, _, value = line.partition(":")
            options[name.strip()] = value.strip()
        lines = lines[end + 1 :]
    entries: list[str] = []
    for line in (line.strip() for line in lines):
        if option := re.fullmatch(r":([\w-]+):\s*(.*)", line):
            options[option[1]] = option[2]
        elif line and line != "self" and "://" not in line:
            target = _ENTRY_TARGET.search(line)
            entries.append(target.group(1).strip() if target else line)
    return options.get("caption") or None, "glob" in options, entries


def _literal_assignments(conf: Path) -> dict[str, object]:
    """The settings conf.py assigns plain values to (`master_doc = "index"`), read without
    running it: a configuration is code, and ingest does not run a book's code."""
    try:
        tree = ast.parse(conf.read_text(encoding="utf-8"), filename=str(conf))
    except (OSError, SyntaxError, ValueError) as exc:
        raise LayoutError(f"{conf}: cannot be read ({exc})") from exc
    values: dict[str, object] = {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if not targets or node.value is None:
            continue
        try:
            value = ast.literal_eval(node.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        values.update((target.id, value) for target in targets if isinstance(target, ast.Name))
    return values
