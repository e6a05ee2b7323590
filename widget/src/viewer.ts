// The PDF viewer behind a PDF citation: opens the document at the cited page and highlights the
// cited passage (?page=N&highlight=TEXT), with pdf.js from npm (no CDN). The server's viewer page
// gives the file's URL in <body data-file>.
import { GlobalWorkerOptions, getDocument } from "pdfjs-dist";
import { EventBus, PDFFindController, PDFLinkService, PDFViewer } from "pdfjs-dist/web/pdf_viewer.mjs";

const FOUND = 0;
const NOT_FOUND = 1;
const WRAPPED = 2;
// A passage pdf.js reads slightly differently (ligatures, a word split over pages) may still be
// found by its beginning.
const FALLBACK_LENGTHS = [80, 40];

GlobalWorkerOptions.workerSrc = new URL("pdf.worker.mjs", import.meta.url).href;

function queries(passage: string): string[] {
  const text = passage.replace(/\s+/g, " ").trim();
  const shorter = FALLBACK_LENGTHS.filter((n) => text.length > n).map((n) =>
    text.slice(0, n).replace(/\s+\S*$/, ""),
  );
  return text ? [text, ...shorter] : [];
}

async function open(): Promise<void> {
  const body = document.body;
  const params = new URLSearchParams(location.search);
  const wanted = Math.max(1, Number(params.get("page")) || 1);
  const container = document.getElementById("viewerContainer") as HTMLDivElement;
  const pageLabel = document.getElementById("page") as HTMLElement;
  const eventBus = new EventBus();
  const linkService = new PDFLinkService({ eventBus });
  const findController = new PDFFindController({ eventBus, linkService });
  const viewer = new PDFViewer({ container, eventBus, linkService, findController });
  linkService.setViewer(viewer);

  const tries = queries(params.get("highlight") || "");
  const find = (query: string) =>
    eventBus.dispatch("find", {
      source: null, type: "", query, caseSensitive: false, entireWord: false,
      highlightAll: false, findPrevious: false, matchDiacritics: false,
    });
  eventBus.on("updatefindcontrolstate", ({ state }: { state: number }) => {
    if (state === FOUND || state === WRAPPED) {
      body.dataset.highlight = "found";
    } else if (state === NOT_FOUND) {
      tries.shift();
      if (tries.length) find(tries[0]);
      else body.dataset.highlight = "not-found";
    }
  });
  eventBus.on("pagechanging", ({ pageNumber }: { pageNumber: number }) => {
    pageLabel.textContent = `Page ${pageNumber} of ${viewer.pagesCount}`;
  });
  eventBus.on("pagesinit", () => {
    viewer.currentScaleValue = "page-width";
    viewer.currentPageNumber = Math.min(wanted, viewer.pagesCount);
    pageLabel.textContent = `Page ${viewer.currentPageNumber} of ${viewer.pagesCount}`;
    body.dataset.page = String(viewer.currentPageNumber);
    if (tries.length) find(tries[0]);
  });

  try {
    const pdf = await getDocument({ url: body.dataset.file as string }).promise;
    viewer.setDocument(pdf);
    linkService.setDocument(pdf);
  } catch (error) {
    pageLabel.textContent = `This PDF cannot be shown: ${(error as Error).message}`;
    body.dataset.highlight = "error";
  }
}

void open();
