// Compiles the server ahead of time into one ESM file, server/dist/main.js (and its source map), which
// `npm start` runs with plain node: no TypeScript loader compiles and resolves ~200 modules at every
// start (docs/decisions/0050-npm-start-runs-a-compiled-server.md). Runs before every `npm start`
// (prestart; well under a second). Dependencies stay in node_modules; the contract package, which
// ships TypeScript, is bundled in. Names are kept as tsx kept them (errors, plugins and logs read
// them), so the compiled server runs the same code the tests run from source.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const SERVER = path.resolve(import.meta.dirname, '..');
const OUT_DIR = path.join(SERVER, 'dist');
const pkg = JSON.parse(readFileSync(path.join(SERVER, 'package.json'), 'utf8'));
const external = Object.keys(pkg.dependencies ?? {}).filter((name) => name !== '@tollbooth/contract');

// A source file's `import.meta.dirname` names its own folder (migrations, the download template, the
// repository root): keep that meaning in the bundle, relative to where the bundle lies.
const sourceDirname = {
  name: 'source-dirname',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.dirname')) return undefined;
      const relative = path.relative(OUT_DIR, path.dirname(args.path)).split(path.sep).join('/');
      return {
        contents: text.replaceAll('import.meta.dirname', `__sourceDir(${JSON.stringify(relative)})`),
        loader: 'ts',
      };
    });
  },
};

await build({
  entryPoints: [path.join(SERVER, 'src/main.ts')],
  outfile: path.join(OUT_DIR, 'main.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: [...external, ...external.map((name) => `${name}/*`)],
  keepNames: true,
  sourcemap: 'linked',
  banner: {
    js: "import { resolve as __resolvePath } from 'node:path'; const __sourceDir = (relative) => __resolvePath(import.meta.dirname, relative);",
  },
  plugins: [sourceDirname],
  logLevel: 'warning',
});
