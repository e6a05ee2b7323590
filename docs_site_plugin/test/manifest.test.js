const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test } = require('node:test');

const { buildManifest, headingsFromHtml } = require('../manifest');

test('headings come with their published anchors and plain text', () => {
  const html = '<h1>Title</h1><h2 class="anchor" id="what-are-nodes">What Are <code>Nodes</code>?' +
    '<a href="#what-are-nodes" class="hash-link">\u200b</a></h2><h3 id="qos--reliability">QoS &amp; Reliability</h3>';
  assert.deepEqual(headingsFromHtml(html), [
    { text: 'What Are Nodes?', anchor: 'what-are-nodes' },
    { text: 'QoS & Reliability', anchor: 'qos--reliability' },
  ]);
});

test('the manifest maps source paths to permalinks and headings', () => {
  const site = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-site-'));
  const out = path.join(site, 'build');
  fs.mkdirSync(path.join(out, 'docs', 'guide', 'start'), { recursive: true });
  fs.writeFileSync(path.join(out, 'docs', 'guide', 'start', 'index.html'), '<h2 id="install">Install</h2>');
  const manifest = buildManifest({
    docs: [{ id: 'guide/start', source: '@site/docs/01-guide/02-start.md', permalink: '/docs/guide/start', title: 'Start' }],
    contentPath: path.join(site, 'docs'),
    siteDir: site,
    outDir: out,
    baseUrl: '/',
  });
  assert.deepEqual(manifest, [{
    id: 'guide/start', source: '01-guide/02-start.md', permalink: '/docs/guide/start', title: 'Start',
    headings: [{ text: 'Install', anchor: 'install' }],
  }]);
});
