// The permalink manifest (lectern-manifest.json) that `lectern ingest --manifest` reads:
// every doc's real permalink, title and heading anchors, taken from the built site.
const fs = require('fs');
const path = require('path');

const ENTITIES = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#x27;': "'" };

function textOf(html) {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|#x27);/g, (entity) => ENTITIES[entity])
    .replace(/[\u200b\u00a0]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** [{text, anchor}] for the h2–h6 headings of a built page, in order. */
function headingsFromHtml(html) {
  const headings = [];
  const pattern = /<h([2-6])\b[^>]*\bid="([^"]+)"[^>]*>([\s\S]*?)<\/h\1>/g;
  for (const match of html.matchAll(pattern)) {
    headings.push({ text: textOf(match[3]), anchor: match[2] });
  }
  return headings;
}

/** The built HTML file of a permalink (trailing-slash or .html layouts). */
function htmlFileFor(outDir, permalink, baseUrl) {
  const relative = permalink.startsWith(baseUrl) ? permalink.slice(baseUrl.length) : permalink.replace(/^\//, '');
  const candidates = [path.join(outDir, relative, 'index.html'), path.join(outDir, `${relative.replace(/\/$/, '')}.html`)];
  return candidates.find((file) => fs.existsSync(file));
}

/**
 * @param docs loaded docs of one version: [{id, source, permalink, title}]
 * @param contentPath absolute docs folder; siteDir resolves "@site/" sources
 */
function buildManifest({ docs, contentPath, siteDir, outDir, baseUrl }) {
  return docs.map((doc) => {
    const absolute = doc.source.replace(/^@site\//, `${siteDir}${path.sep}`);
    const file = htmlFileFor(outDir, doc.permalink, baseUrl);
    return {
      id: doc.id,
      source: path.relative(contentPath, absolute).split(path.sep).join('/'),
      permalink: doc.permalink,
      title: doc.title,
      headings: file ? headingsFromHtml(fs.readFileSync(file, 'utf8')) : [],
    };
  });
}

module.exports = { buildManifest, headingsFromHtml, textOf };
