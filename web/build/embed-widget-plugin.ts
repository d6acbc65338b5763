// Builds the embed widget beside the app (issue 28, docs/decisions/0030-embed-widget.md): two small
// hand-written scripts, each one IIFE file with no chunk shared with the React app, at stable URLs
// the server and the pasted snippet name: dist/embed/widget.js (the page inside the frame) and
// dist/embed/loader.js (the snippet on host pages). Each has its own budget, checked here like the
// landing page's; the build's precompression (web-delivery-plugin.ts, closeBundle) then writes their
// .br and .gz copies.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Logger, type Plugin } from 'vite';
import { kib } from './initial-js.ts';

/** The widget page's whole JavaScript, gzip. */
export const EMBED_WIDGET_BUDGET_GZIP = 8 * 1024;
/** The snippet's script every host page loads, gzip. */
export const EMBED_LOADER_BUDGET_GZIP = 2 * 1024;

export const EMBED_ENTRIES = [
  { name: 'widget', entry: 'src/embed/widget.ts', budget: EMBED_WIDGET_BUDGET_GZIP },
  { name: 'loader', entry: 'src/embed/loader.ts', budget: EMBED_LOADER_BUDGET_GZIP },
] as const;

export function embedWidgetPlugin(): Plugin {
  let root = '';
  let outDir = '';
  let logger: Logger | undefined;
  return {
    name: 'tollbooth:embed-widget',
    apply: 'build',
    configResolved(config) {
      root = config.root;
      outDir = path.resolve(config.root, config.build.outDir, 'embed');
      logger = config.logger;
    },
    // writeBundle, not closeBundle: the files must exist before closeBundle precompresses the build.
    async writeBundle() {
      for (const { name, entry, budget } of EMBED_ENTRIES) {
        await build({
          configFile: false,
          root,
          logLevel: 'warn',
          publicDir: false,
          build: {
            outDir,
            emptyOutDir: false,
            target: 'es2020',
            minify: true,
            lib: { entry: path.resolve(root, entry), formats: ['iife'], name: `tollbooth_${name}`, fileName: () => `${name}.js` },
          },
        });
        const content = readFileSync(path.join(outDir, `${name}.js`));
        const gzip = gzipSync(content, { level: 9 }).length;
        const line = `embed ${name}.js: ${kib(content.length)} raw, ${kib(gzip)} gzip (budget ${kib(budget)} gzip)`;
        if (gzip > budget) this.error(`${line}: over budget. The widget is plain DOM on purpose: keep libraries out of web/src/embed.`);
        logger?.info(line);
      }
    },
  };
}
