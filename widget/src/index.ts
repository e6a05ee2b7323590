/** Entry point: one <script src=".../widget.js" data-…> tag, or window.Lectern.init(options). */

import { DEFAULT_SHORTCUT } from "./shortcut";
import { Widget, type Options } from "./ui";

declare global {
  interface Window {
    Lectern?: {
      init(options: Partial<Options>): Widget;
      setPage(page: { lessonId?: string; permalink?: string; title?: string }): void;
      open(): void;
      close(): void;
    };
  }
}

const DEFAULT_STARTERS = ["What does this book cover?", "What are the key ideas of this page?"];
const script = document.currentScript as HTMLScriptElement | null;
let widget: Widget | null = null;
let page: string | undefined; // set by the Docusaurus plugin, possibly before the widget exists

function fromScript(tag: HTMLScriptElement | null): Partial<Options> {
  if (!tag) return {};
  const data = tag.dataset;
  const starters = data.starterQuestions?.split("|").map((q) => q.trim()).filter(Boolean);
  return {
    apiUrl: data.apiUrl || (tag.src ? new URL(tag.src, location.href).origin : undefined),
    bookId: data.bookId,
    readerToken: data.readerToken,
    title: data.title,
    accent: data.accent,
    position: data.position === "left" ? "left" : undefined,
    lessonId: data.lessonId,
    starterQuestions: starters?.length ? starters : undefined,
    shortcut: data.shortcut,
  };
}

function init(options: Partial<Options>): Widget {
  if (widget) return widget;
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  widget = new Widget({
    apiUrl: location.origin,
    title: "Ask this book",
    accent: "#2e8555",
    position: "right",
    starterQuestions: DEFAULT_STARTERS,
    shortcut: DEFAULT_SHORTCUT,
    ...defined,
  } as Options);
  if (page) widget.setPage(page);
  document.body.append(widget.host);
  return widget;
}

window.Lectern = {
  init,
  setPage: (info) => {
    page = info.lessonId ?? info.permalink;
    widget?.setPage(page);
  },
  open: () => widget?.open(),
  close: () => widget?.close(),
};

if (script && script.dataset.manual === undefined) {
  const start = () => init(fromScript(script));
  if (document.body) start();
  else document.addEventListener("DOMContentLoaded", start, { once: true });
}
