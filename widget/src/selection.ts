/** Text selections on the host page: when to offer "Ask about this", and the context to send. */

export const MIN_SELECTION = 10;
export const MAX_CONTEXT = 1500;
const BLOCKS = "p, li, td, th, pre, blockquote, h1, h2, h3, h4, h5, h6, dd, figcaption";

export function selectionText(selection: Selection | null): string {
  return (selection?.toString() ?? "").replace(/\s+/g, " ").trim();
}

export function shouldOffer(selection: Selection | null, widgetHost: Element): boolean {
  if (!selection || selection.rangeCount === 0 || selection.isCollapsed) return false;
  if (selectionText(selection).length < MIN_SELECTION) return false;
  const node = selection.getRangeAt(0).commonAncestorContainer;
  const element = node instanceof Element ? node : node.parentElement;
  return !!element && !widgetHost.contains(element) && element !== widgetHost;
}

/** The block holding the selection plus the blocks before and after it, capped. */
export function surroundingText(selection: Selection): string {
  const node = selection.getRangeAt(0).commonAncestorContainer;
  const start = node instanceof Element ? node : node.parentElement;
  const block = start?.closest(BLOCKS) ?? start;
  if (!block) return "";
  const parts = [block.previousElementSibling, block, block.nextElementSibling]
    .map((el) => (el?.textContent ?? "").replace(/\s+/g, " ").trim())
    .filter(Boolean);
  const text = parts.join("\n\n");
  return text.length > MAX_CONTEXT ? text.slice(0, MAX_CONTEXT) : text;
}

/** "Module · Lesson · Section" ("Document · p. 12 · Section" for a PDF), without empty parts or
 * a part that repeats the one before it (a module's overview page is titled like the module). */
export function citationLabel(parts: {
  module: string; lesson: string; section: string; page?: number | null;
}): string {
  const page = parts.page ? `p. ${parts.page}` : "";
  const names = [parts.module, parts.lesson, page, parts.section].filter(Boolean);
  return names.filter((name, i) => name !== names[i - 1]).join(" · ");
}

// A text fragment names a short passage whole, a longer one by its first and last words
// (`text=start,end`): the browser highlights everything from one to the other.
const WHOLE_UP_TO = 10;
const ENDS_OF = 5;

/** The excerpt's words as the page shows them: code spans and emphasis without their marks. */
function shownWords(excerpt: string): string[] {
  return excerpt
    .replace(/…+$/, "")
    .replace(/`|\*\*|__/g, "")
    .split(/\s+/)
    .map((word) => word.replace(/^[*_]+|[*_]+(?=[.,;:!?)]*$)/g, ""))
    .filter(Boolean);
}

function fragmentText(words: string[]): string {
  return encodeURIComponent(words.join(" ")).replace(/-/g, "%2D"); // "-" and "," are the syntax's own
}

/** A link that opens the cited page, scrolls to the section and highlights the whole excerpt
 * (a PDF citation's link already opens Lectern's viewer at the page, highlighting the passage;
 * a private book's viewer needs the reader token, which a new tab cannot send as a header). */
export function citationHref(url: string, excerpt: string, page?: number | null, readerToken?: string): string {
  if (page) return readerToken ? `${url}&reader_token=${encodeURIComponent(readerToken)}` : url;
  const words = shownWords(excerpt);
  if (!words.length) return url;
  const text = words.length <= WHOLE_UP_TO
    ? fragmentText(words)
    : `${fragmentText(words.slice(0, ENDS_OF))},${fragmentText(words.slice(-ENDS_OF))}`;
  const fragment = `:~:text=${text}`;
  return url.includes("#") ? `${url}${fragment}` : `${url}#${fragment}`;
}
