// After the build: precompress every compressible file, then check the landing page's budget on
// the bytes the server will send (docs/decisions/0020-web-delivery.md).
import path from 'node:path';
import type { Logger, Plugin } from 'vite';
import { kib, LANDING_INITIAL_JS_BUDGET_GZIP, measureInitialJs } from './initial-js.ts';
import { precompressDirectory } from './precompress.ts';

export function webDeliveryPlugin({ budgetGzip = LANDING_INITIAL_JS_BUDGET_GZIP } = {}): Plugin {
  let outDir = '';
  let logger: Logger | undefined;
  return {
    name: 'tollbooth:web-delivery',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
      logger = config.logger;
    },
    // closeBundle runs after the chunks and the public files are written.
    async closeBundle() {
      const written = await precompressDirectory(outDir);
      logger?.info(`precompressed ${written.length} files (.br and .gz beside each)`);
      const landing = measureInitialJs(outDir);
      const line = `landing page initial JS: ${landing.files.length} files, ${kib(landing.raw)} raw, ${kib(landing.gzip)} gzip, ${kib(landing.brotli)} brotli (budget ${kib(budgetGzip)} gzip)`;
      if (landing.gzip > budgetGzip) this.error(`${line}: over budget. Load the new code lazily (web/src/app/router.tsx, React.lazy).`);
      logger?.info(line);
    },
  };
}
