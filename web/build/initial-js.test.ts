// The landing page's initial JavaScript is the entry and its static imports, never its dynamic
// imports, and it is measured as served (the precompressed copies when the build wrote them).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { initialJsFiles, type Manifest, measureInitialJs } from './initial-js.ts';
import { precompressDirectory } from './precompress.ts';

const manifest: Manifest = {
  'index.html': { file: 'assets/index-1.js', isEntry: true, imports: ['_react-2.js', '_shared-3.js'], dynamicImports: ['src/dashboard.tsx'] },
  '_react-2.js': { file: 'assets/react-2.js' },
  '_shared-3.js': { file: 'assets/shared-3.js', imports: ['_react-2.js', '_style-4.css'] },
  '_style-4.css': { file: 'assets/style-4.css' },
  'src/dashboard.tsx': { file: 'assets/dashboard-5.js', isDynamicEntry: true, imports: ['_shared-3.js', '_charts-6.js'] },
  '_charts-6.js': { file: 'assets/charts-6.js' },
};

describe('initialJsFiles', () => {
  it('follows static imports transitively, once each, and leaves dynamic imports and CSS out', () => {
    expect(initialJsFiles(manifest, 'index.html')).toEqual(['assets/index-1.js', 'assets/react-2.js', 'assets/shared-3.js']);
    expect(initialJsFiles(manifest, 'src/dashboard.tsx')).toEqual(['assets/dashboard-5.js', 'assets/shared-3.js', 'assets/react-2.js', 'assets/charts-6.js']);
  });

  it('fails on a manifest that does not name the entry', () => {
    expect(() => initialJsFiles(manifest, 'landing.html')).toThrow('landing.html is not in the Vite manifest');
  });
});

describe('measureInitialJs', () => {
  it('sums the precompressed copies the server sends, and zlib sizes for files too small to precompress', async () => {
    const dist = mkdtempSync(path.join(tmpdir(), 'tollbooth-initial-js-'));
    mkdirSync(path.join(dist, 'assets'));
    mkdirSync(path.join(dist, '.vite'));
    writeFileSync(path.join(dist, '.vite', 'manifest.json'), JSON.stringify(manifest));
    const big = Buffer.from(Array.from({ length: 400 }, (_, i) => `export const value${i} = ${i * 7};`).join('\n'));
    writeFileSync(path.join(dist, 'assets', 'index-1.js'), big);
    writeFileSync(path.join(dist, 'assets', 'react-2.js'), 'export const small = 1;');
    writeFileSync(path.join(dist, 'assets', 'shared-3.js'), big);
    writeFileSync(path.join(dist, 'assets', 'dashboard-5.js'), big);

    const written = await precompressDirectory(dist);
    expect(written.map((file) => path.relative(dist, file)).sort()).toEqual([
      'assets/dashboard-5.js.br',
      'assets/dashboard-5.js.gz',
      'assets/index-1.js.br',
      'assets/index-1.js.gz',
      'assets/shared-3.js.br',
      'assets/shared-3.js.gz',
    ]);

    const landing = measureInitialJs(dist);
    expect(landing.files).toEqual(['assets/index-1.js', 'assets/react-2.js', 'assets/shared-3.js']);
    expect(landing.raw).toBe(2 * big.length + 'export const small = 1;'.length);
    // Zopfli's gzip is no larger than zlib's best, and brotli 11 smaller still for text.
    expect(landing.gzip).toBeLessThanOrEqual(2 * gzipSync(big, { level: 9 }).length + 'export const small = 1;'.length);
    expect(landing.brotli).toBeLessThan(landing.gzip);
  });
});
