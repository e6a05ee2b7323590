"""A book's files: `/books/{book}/files/{path}?page=N&highlight=TEXT` opens a PDF in the viewer
at page N with the passage highlighted (what a PDF citation links to); `?format=pdf` is the file
itself, always as a sandboxed attachment. `/viewer/...` serves the viewer's script (pdf.js, built
by `npm run build` in widget/). `/books/{book}/pages/{path}` shows a text source uploaded from
the console (backend/sources.py), with its sections' anchors and the widget.

A private book's files need its reader token like its answers do; a link opened in a new tab
cannot send the X-Reader-Token header, so `reader_token` in the query is accepted too.
"""

import asyncio
import html
from pathlib import Path
from typing import Literal
from urllib.parse import quote, urlencode

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import FileResponse, HTMLResponse

from backend.api.access import check_reader
from backend.api.pages import rendered_sections
from backend.retrieval.index import validate_book_id

VIEWER_DIR = Path(__file__).resolve().parents[2] / "widget" / "dist" / "viewer"
# pdf.js runs its parser in a worker, draws on canvases and may decode images with WebAssembly.
_VIEWER_POLICY = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data: blob:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'"
)

router = APIRouter(include_in_schema=False)


@router.get("/viewer/{name}")
async def viewer_asset(name: Literal["viewer.js", "pdf.worker.mjs", "viewer.css"]) -> FileResponse:
    path = VIEWER_DIR / name
    if not path.is_file():
        raise HTTPException(404, "the PDF viewer is not built: run `npm run build` in widget/")
    media = "text/css" if name.endswith(".css") else "text/javascript"
    return FileResponse(path, media_type=media, headers={"Cache-Control": "public, max-age=3600"})


def _check_reader(request: Request, book: str, reader_token: str | None) -> None:
    try:
        validate_book_id(book)
    except ValueError as exc:
        raise HTTPException(404, str(exc)) from None
    check_reader(request, book, reader_token)


@router.get("/books/{book}/pages/{path:path}")
async def uploaded_page(
    request: Request, book: str, path: str, reader_token: str | None = Query(None, max_length=2000)
) -> HTMLResponse:
    _check_reader(request, book, reader_token)
    corpus = await request.app.state.library.loaded_corpus(book)
    wanted = f"/books/{book}/pages/{quote(path)}"
    page = next((p for p in corpus.pages if p.url == wanted), None)
    if page is None:
        raise HTTPException(404, f"the book {book!r} has no page {path!r}")
    content = await asyncio.to_thread(rendered_sections, corpus, page)  # a long page: off the event loop
    return HTMLResponse(UPLOADED_PAGE.format(
        title=html.escape(page.title), book=html.escape(book), lesson_id=html.escape(page.lesson_id),
        content=content,
    ))


@router.get("/books/{book}/files/{path:path}", response_model=None)
async def book_file(
    request: Request,
    book: str,
    path: str,
    format: Literal["viewer", "pdf"] = "viewer",
    reader_token: str | None = Query(None, max_length=2000),
) -> HTMLResponse | FileResponse:
    _check_reader(request, book, reader_token)
    folder = request.app.state.settings.files_dir(book).resolve()
    file = (folder / path).resolve()
    if not file.is_relative_to(folder) or not file.is_file() or file.suffix.lower() != ".pdf":
        raise HTTPException(404, f"the book {book!r} has no file {path!r}")
    if format == "pdf":
        # The file itself is never shown by the browser on this origin: a PDF may carry
        # JavaScript (an OpenAction) that a browser's own viewer runs. Readers see it in the
        # viewer (pdf.js fetches it and runs none of it); opened, it downloads, sandboxed.
        return FileResponse(
            file, media_type="application/pdf", filename=file.name, content_disposition_type="attachment",
            headers={"Content-Security-Policy": "sandbox", "X-Content-Type-Options": "nosniff"},
        )
    kept = {"reader_token": reader_token} if reader_token else {}
    pdf_url = f"/books/{quote(book)}/files/{quote(path)}?{urlencode({'format': 'pdf'} | kept)}"
    page = VIEWER_PAGE.format(title=html.escape(file.name), file=html.escape(pdf_url))
    return HTMLResponse(page, headers={"Content-Security-Policy": _VIEWER_POLICY, "Cache-Control": "no-store"})


VIEWER_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · Lectern</title>
<link rel="stylesheet" href="/viewer/viewer.css">
<style>
  body {{ margin: 0; font-family: system-ui, sans-serif; background: #525659; }}
  header {{ position: fixed; inset: 0 0 auto 0; height: 44px; display: flex; gap: 1rem;
           align-items: center; padding: 0 1rem; background: #323639; color: #f1f1f1; font-size: 14px; z-index: 2; }}
  header h1 {{ font-size: 15px; font-weight: 600; margin: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; flex: 1; }}
  header a {{ color: #8ab4f8; }}
  #viewerContainer {{ position: absolute; inset: 44px 0 0 0; overflow: auto; }}
  .textLayer .highlight {{ background-color: rgb(255 200 0 / 0.55); }}
  .pdfViewer .page.loadingIcon::after {{ background-image: none; }}
</style>
</head>
<body data-file="{file}">
<header><h1>{title}</h1><span id="page" aria-live="polite">Loading…</span><a href="{file}">Download PDF</a></header>
<div id="viewerContainer"><div id="viewer" class="pdfViewer"></div></div>
<script type="module" src="/viewer/viewer.js"></script>
</body>
</html>
"""


UPLOADED_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · Lectern</title>
<style>
  :root {{ color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.6; }}
  main {{ max-width: 48rem; margin: 0 auto; padding: 1.5rem; }}
  pre {{ overflow-x: auto; background: #8881; padding: 0.75rem; border-radius: 6px; }}
  table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #8886; padding: 0.3rem 0.5rem; }}
</style>
</head>
<body>
<main><article data-lesson-id="{lesson_id}">
{content}
</article></main>
<script src="/widget.js" defer data-api-url="" data-book-id="{book}" data-lesson-id="{lesson_id}"></script>
</body>
</html>
"""
