/** Search mode: the book's passages for what the reader types, no answer (POST /api/search). */

export interface SearchHit {
  module: string;
  lesson: string;
  section: string;
  url: string;
  excerpt: string;
  page?: number | null;
  highlights: [number, number][];
}

export async function searchBook(
  apiUrl: string,
  sessionId: string,
  body: { query: string; book?: string },
  signal: AbortSignal,
  readerToken?: string,
): Promise<SearchHit[]> {
  const response = await fetch(`${apiUrl}/api/search`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Session-Id": sessionId, ...(readerToken ? { "X-Reader-Token": readerToken } : {}) },
    body: JSON.stringify({ ...body, limit: 8 }),
    signal,
  });
  if (!response.ok) throw new Error((await response.json().catch(() => ({}))).detail || "Search is unavailable right now.");
  return (await response.json()).results as SearchHit[];
}

/** The excerpt as text nodes, with the query's words in <mark>. */
export function highlighted(excerpt: string, ranges: [number, number][]): Node[] {
  const nodes: Node[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    if (start < at || end > excerpt.length) continue;
    nodes.push(document.createTextNode(excerpt.slice(at, start)));
    const mark = document.createElement("mark");
    mark.textContent = excerpt.slice(start, end);
    nodes.push(mark);
    at = end;
  }
  nodes.push(document.createTextNode(excerpt.slice(at)));
  return nodes;
}
