// An example site publishing a book with the Lectern widget.
//   LECTERN_DOCS_PATH  the book's docs folder   (default: the project's sample book)
//   LECTERN_API_URL    where `lectern serve` runs (default: http://127.0.0.1:8000)
//   LECTERN_BOOK       the id given to `lectern ingest --book`
const fs = require('fs');
const path = require('path');

// The real path: webpack resolves symlinks, and Docusaurus must see the same paths it does.
const docsPath = fs.realpathSync(path.resolve(__dirname, process.env.LECTERN_DOCS_PATH || '../../sample_book'));

module.exports = {
  title: 'Lectern example',
  url: 'http://127.0.0.1:3000',
  baseUrl: '/',
  onBrokenLinks: 'warn',
  markdown: { format: 'detect', hooks: { onBrokenMarkdownLinks: 'warn' } },
  future: { faster: false },
  presets: [
    ['classic', {
      docs: { path: docsPath, routeBasePath: 'docs', sidebarPath: require.resolve('./sidebars.js') },
      blog: false,
      pages: false,
      theme: {},
    }],
  ],
  plugins: [
    ['docusaurus-plugin-lectern', {
      apiUrl: process.env.LECTERN_API_URL || 'http://127.0.0.1:8000',
      bookId: process.env.LECTERN_BOOK || 'lectern-guide',
      title: 'Ask this book',
    }],
  ],
  themeConfig: {
    colorMode: { respectPrefersColorScheme: true },
    navbar: { title: 'Lectern example', items: [{ type: 'docSidebar', sidebarId: 'book', label: 'Book' }] },
  },
};
