"""GET /widget.js and the demo site: the ingested book's lessons, with the widget on them.

Ingest the book with `--base-url http://HOST:PORT/demo` and every citation link opens the
cited lesson and section right here, so Lectern can be tried without a docs site.
"""

import asyncio
import html
from functools import lru_cache
from pathlib import Path

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse
from markdown_it import MarkdownIt

from backend.api.access import check_reader
from backend.retrieval.models import Chunk, Page
from backend.retrieval.search import BookCorpus

WIDGET_JS = Path(__file__).resolve().parents[2] / "widget" / "dist" / "widget.js"
_markdown = MarkdownIt("commonmark", {"html": False}).enable("table")

router = APIRouter(include_in_schema=False)
# A page is rendered once per build (a corpus is one build; a page's URL and text are its own):
# rendering a long page took up to 0.4 s, and every reader who opens it asks for it again.
RENDERED_PAGES = 32


def rendered_sections(corpus: BookCorpus, page: Page) -> str:
    """The page's title and passages as HTML `<section>`s, the first part of each section with
    its anchor as its id; raw HTML in a passage is shown as text, never run."""
    return _rendered(corpus, page.source_path, page.title)


@lru_cache(maxsize=RENDERED_PAGES)
def _rendered(corpus: BookCorpus, source_path: str, title: str) -> str:
    sections: list[str] = []
    anchored: set[str] = set()
    chunks = corpus.page_chunks(source_path)
    # A page's `# Title` is in its first passage only when text follows it before a `##`.
    if not (chunks and chunks[0].text.startswith("# ")):
        sections.append(f"<h1>{html.escape(title)}</h1>")
    for chunk in chunks:
        body = _rendered_passage(chunk)
        anchor = ""
        if chunk.anchor and chunk.anchor not in anchored:  # a split section's first part
            anchored.add(chunk.anchor)
            anchor = f' id="{html.escape(chunk.anchor)}"'
        sections.append(f"<section{anchor}>{body}</section>")
    return "\n".join(sections)


def _rendered_passage(chunk: Chunk) -> str:
    """A passage's own text (without the sentence it repeats) as HTML, the bodies of its
    collapsibles as closed `<details>` under their labels."""
    html_parts: list[str] = []
    shown = chunk.overlap_chars
    for start, end, summary in chunk.collapsibles:
        if end <= shown:
            continue
        html_parts.append(_markdown.render(chunk.text[shown:start]))
        body = _markdown.render(chunk.text[max(start, shown) : end])
        html_parts.append(f"<details><summary>{html.escape(summary or 'Details')}</summary>{body}</details>")
        shown = end
    html_parts.append(_markdown.render(chunk.text[shown:]))
    return "".join(html_parts)


@router.get("/widget.js")
async def widget_js() -> FileResponse:
    if not WIDGET_JS.exists():
        raise HTTPException(404, "the widget is not built: run `npm run build` in widget/")
    return FileResponse(WIDGET_JS, media_type="text/javascript", headers={"Cache-Control": "public, max-age=300"})


@router.get("/demo")
@router.get("/demo/")
async def demo_home(request: Request) -> RedirectResponse:
    corpus = await _corpus(request)
    first = next((p for p in corpus.pages if p.kind == "lesson"), None) or (corpus.pages or [None])[0]
    if first is None:
        raise HTTPException(404, "the book has no pages yet: run `lectern ingest`")
    return RedirectResponse(_demo_path(first) or "/docs", status_code=307)


@router.get("/demo/{path:path}")
async def demo_page(request: Request, path: str) -> HTMLResponse:
    corpus = await _corpus(request)
    wanted = "/demo/" + path.strip("/")
    page = next((p for p in corpus.pages if _demo_path(p).rstrip("/") == wanted), None)
    if page is None:
        raise HTTPException(404, f"no lesson at {wanted}")
    return HTMLResponse(await asyncio.to_thread(render_page, request, corpus, page))  # off the event loop


async def _corpus(request: Request) -> BookCorpus:
    check_reader(request, request.app.state.settings.book)
    return await request.app.state.library.loaded_corpus()


def _demo_path(page: Page) -> str:
    """The page's path if it was ingested with a /demo base URL, else ""."""
    path = page.url.split("://", 1)[-1]
    path = "/" + path.split("/", 1)[1] if "://" in page.url and "/" in path else path
    return path if path.startswith("/demo/") else ""


def render_page(request: Request, corpus: BookCorpus, page: Page) -> str:
    nav: list[str] = []
    module = None
    for other in corpus.pages:
        if other.module != module:
            module = other.module
            nav.append(f"<h4>{html.escape(module or 'Book')}</h4>")
        current = ' aria-current="page"' if other.source_path == page.source_path else ""
        nav.append(f'<a href="{html.escape(_demo_path(other))}"{current}>{html.escape(other.title)}</a>')
    settings = request.app.state.settings
    return DEMO_TEMPLATE.format(
        title=html.escape(page.title),
        book=html.escape(settings.book),
        lesson_id=html.escape(page.lesson_id),
        nav="\n".join(nav),
        content=rendered_sections(corpus, page),
    )


DEMO_TEMPLATE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · Lectern demo</title>
<style>
  :root {{ color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.6; }}
  body {{ margin: 0; display: grid; grid-template-columns: 260px 1fr; min-height: 100vh; }}
  nav {{ padding: 1rem; border-right: 1px solid #8884; overflow-y: auto; font-size: 0.9rem; }}
  nav a {{ display: block; padding: 0.2rem 0; color: inherit; }}
  nav a[aria-current] {{ font-weight: 700; }}
  main {{ padding: 1.5rem 3rem; max-width: 52rem; }}
  pre {{ overflow-x: auto; background: #8881; padding: 0.75rem; border-radius: 6px; }}
  table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #8886; padding: 0.3rem 0.5rem; }}
  details {{ margin: 0.5rem 0 1rem; }} summary {{ cursor: pointer; font-weight: 600; }}
  header.demo {{ font-size: 0.8rem; opacity: 0.7; margin-bottom: 1rem; }}
  .menu {{ display: none; }}
  @media (max-width: 700px) {{
    body {{ grid-template-columns: 1fr; }}
    main {{ padding: 1rem; }}
    .menu {{ display: inline-flex; align-items: center; gap: 0.4rem; position: sticky; top: 0; z-index: 3;
             margin: 0.5rem 1rem 0; padding: 0.5rem 0.8rem; font: inherit; font-size: 0.95rem;
             border: 1px solid #8888; border-radius: 6px; background: Canvas; color: CanvasText; cursor: pointer; }}
    nav {{ display: none; position: fixed; inset: 0 auto 0 0; width: min(85vw, 300px); z-index: 4;
           background: Canvas; box-shadow: 0 0 24px #0006; }}
    nav.open {{ display: block; }}
  }}
</style>
</head>
<body>
<button type="button" class="menu" aria-expanded="false" aria-controls="lessons"><span aria-hidden="true">☰</span> Lessons</button>
<nav id="lessons" aria-label="Lessons">{nav}</nav>
<main>
<header class="demo">Lectern demo · book <code>{book}</code> · select any passage and click “Ask about this”, or use the chat button.</header>
<article data-lesson-id="{lesson_id}">
{content}
</article>
</main>
<script>
  // Below 700 px the lessons are a panel the menu button opens over the page (a disclosure).
  (() => {{
    const button = document.querySelector("button.menu"), nav = document.getElementById("lessons");
    const setOpen = (open, returnFocus) => {{
      nav.classList.toggle("open", open);
      button.setAttribute("aria-expanded", String(open));
      if (open) (nav.querySelector("a[aria-current]") || nav.querySelector("a"))?.focus();
      else if (returnFocus) button.focus();
    }};
    const isOpen = () => nav.classList.contains("open");
    button.addEventListener("click", () => setOpen(!isOpen(), false));
    document.addEventListener("keydown", (event) => {{
      if (event.key === "Escape" && isOpen()) {{ event.preventDefault(); setOpen(false, true); }}
    }});
    document.addEventListener("click", (event) => {{
      if (isOpen() && !nav.contains(event.target) && !button.contains(event.target)) setOpen(false, false);
    }});
    nav.addEventListener("focusout", (event) => {{
      if (isOpen() && event.relatedTarget && !nav.contains(event.relatedTarget) && event.relatedTarget !== button) setOpen(false, false);
    }});
  }})();
</script>
<script src="/widget.js" defer data-api-url="" data-book-id="{book}" data-lesson-id="{lesson_id}" data-title="Ask this book"></script>
</body>
</html>
"""
