/** Safe markdown for answers: everything is escaped first, then a small subset is formatted.
 * No HTML from the server or the book is ever interpreted. */

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** Only http(s), relative and fragment links; anything else (javascript:, data:) is dropped. */
// A web URL, or a path or fragment of this site. Not "//host" nor "/\host", which browsers
// read as another host, nor a URL with control characters, which browsers strip ("/\t/host").
export function safeUrl(url: string): string | null {
  const trimmed = url.trim();
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) return null;
  if (/^(https?:\/\/|\/(?![\/\\])|#|\.{1,2}\/)/i.test(trimmed)) return trimmed;
  return null;
}

function inline(escaped: string, citationUrl: (n: number) => string | null): string {
  const codes: string[] = [];
  let out = escaped.replace(/`([^`]+)`/g, (_, code: string) => {
    codes.push(`<code>${code}</code>`);
    return `\u0000${codes.length - 1}\u0000`;
  });
  out = out
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^*\w])\*([^*\s][^*]*)\*(?!\w)/g, "$1<em>$2</em>")
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_whole, label: string, href: string) => {
      const url = safeUrl(href.replace(/&amp;/g, "&"));
      return url ? `<a href="${escapeHtml(url)}" target="_blank" rel="noopener">${label}</a>` : label;
    })
    .replace(/\[(\d{1,2})\]/g, (whole, n: string) => {
      const url = citationUrl(Number(n));
      return url
        ? `<sup><a class="cite" href="${escapeHtml(url)}" aria-label="citation ${n}">[${n}]</a></sup>`
        : whole;
    });
  return out.replace(/\u0000(\d+)\u0000/g, (_, i: string) => codes[Number(i)]);
}

export function renderMarkdown(text: string, citationUrl: (n: number) => string | null = () => null): string {
  const html: string[] = [];
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let list: "ul" | "ol" | null = null;
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length) html.push(`<p>${inline(escapeHtml(paragraph.join(" ")), citationUrl)}</p>`);
    paragraph = [];
  };
  const closeList = () => {
    if (list) html.push(`</${list}>`);
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = line.match(/^\s*```/);
    if (fence) {
      flush();
      closeList();
      const code: string[] = [];
      while (++i < lines.length && !/^\s*```/.test(lines[i])) code.push(lines[i]);
      html.push(`<pre><code>${escapeHtml(code.join("\n"))}</code></pre>`);
      continue;
    }
    const bullet = line.match(/^\s*[-*+]\s+(.*)$/);
    const numbered = line.match(/^\s*\d+[.)]\s+(.*)$/);
    if (bullet || numbered) {
      flush();
      const kind = bullet ? "ul" : "ol";
      if (list !== kind) {
        closeList();
        html.push(`<${kind}>`);
        list = kind;
      }
      html.push(`<li>${inline(escapeHtml((bullet ?? numbered)![1]), citationUrl)}</li>`);
      continue;
    }
    if (!line.trim()) {
      flush();
      closeList();
      continue;
    }
    closeList();
    paragraph.push(line.trim());
  }
  flush();
  closeList();
  return html.join("");
}
