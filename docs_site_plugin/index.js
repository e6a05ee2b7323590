// docusaurus-plugin-lectern: the Lectern widget on every page, and a permalink manifest.
const path = require('path');
const fs = require('fs');
const { Joi } = require('@docusaurus/utils-validation');
const { buildManifest } = require('./manifest');

const MANIFEST = 'lectern-manifest.json';

const schema = Joi.object({
  apiUrl: Joi.string().uri({ scheme: ['http', 'https'] }).required(),
  bookId: Joi.string().pattern(/^[a-z0-9][a-z0-9_-]{0,62}$/).required(),
  title: Joi.string().max(80).default('Ask this book'),
  accent: Joi.string().pattern(/^#[0-9a-fA-F]{3,8}$/).default('#2e8555'),
  position: Joi.string().valid('left', 'right').default('right'),
  starterQuestions: Joi.array().items(Joi.string().max(200)).max(6).default([]),
  // The keys that open the widget ("mod+i": ⌘I on Apple systems, Ctrl+I elsewhere); false for none.
  shortcut: Joi.alternatives()
    .try(Joi.string().pattern(/^((mod|ctrl|control|cmd|command|meta|alt|option|shift)\+)+.$/i), Joi.boolean().valid(false))
    .default('mod+i'),
});

function pluginLectern(context, options) {
  const apiUrl = options.apiUrl.replace(/\/+$/, '');
  let docs = [];
  let contentPath = context.siteDir;

  return {
    name: 'docusaurus-plugin-lectern',

    getClientModules() {
      return [path.resolve(__dirname, 'client.js')];
    },

    injectHtmlTags() {
      const attributes = {
        src: `${apiUrl}/widget.js`,
        defer: true,
        'data-api-url': apiUrl,
        'data-book-id': options.bookId,
        'data-title': options.title,
        'data-accent': options.accent,
        'data-position': options.position,
        'data-shortcut': options.shortcut === false ? 'off' : options.shortcut,
      };
      if (options.starterQuestions.length) attributes['data-starter-questions'] = options.starterQuestions.join('|');
      return { postBodyTags: [{ tagName: 'script', attributes }] };
    },

    async allContentLoaded({ allContent }) {
      const instances = allContent['docusaurus-plugin-content-docs'] || {};
      const versions = Object.values(instances).flatMap((instance) => instance.loadedVersions || []);
      const current = versions.find((version) => version.versionName === 'current') || versions[0];
      if (current) {
        docs = current.docs;
        contentPath = current.contentPath;
      }
    },

    async postBuild({ outDir, baseUrl }) {
      const manifest = buildManifest({ docs, contentPath, siteDir: context.siteDir, outDir, baseUrl });
      fs.writeFileSync(path.join(outDir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    },
  };
}

module.exports = pluginLectern;
module.exports.validateOptions = ({ options, validate }) => validate(schema, options);
