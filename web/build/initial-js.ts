// What a page downloads before it can run: its entry chunk and every chunk that entry imports
// statically, transitively (dynamic imports load later, on demand). Read from Vite's manifest
// (build.manifest) and measured as served: raw, and the build's own .gz and .br copies.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';

/** One chunk of Vite's .vite/manifest.json (the fields used here). */
export interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}
export type Manifest = Record<string, ManifestChunk>;

export interface Bytes {
  raw: number;
  gzip: number;
  brotli: number;
}

/** The target: the landing page's initial JavaScript, gzip. */
export const LANDING_INITIAL_JS_BUDGET_GZIP = 100 * 1024;
export const MANIFEST_PATH = '.vite/manifest.json';

/** The files (relative to the build directory) of `entry` and its static imports, entry first. */
export function initialJsFiles(manifest: Manifest, entry: string): string[] {
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    const chunk = manifest[key];
    if (!chunk) throw new Error(`${key} is not in the Vite manifest`);
    seen.add(key);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit(entry);
  return [...seen].map((key) => (manifest[key] as ManifestChunk).file).filter((file) => /\.m?js$/.test(file));
}

export function readManifest(distDir: string): Manifest {
  return JSON.parse(readFileSync(path.join(distDir, MANIFEST_PATH), 'utf8')) as Manifest;
}

/**
 * One file's size as the server sends it for each encoding: its precompressed copy when the build
 * wrote one, else (a file too small to precompress, which the server sends as is) zlib's size.
 */
export function servedBytes(file: string): Bytes {
  const content = readFileSync(file);
  const copy = (suffix: string, encode: (data: Buffer) => Buffer) =>
    existsSync(file + suffix) ? statSync(file + suffix).size : Math.min(content.length, encode(content).length);
  return {
    raw: content.length,
    gzip: copy('.gz', (data) => gzipSync(data, { level: 9 })),
    brotli: copy('.br', (data) => brotliCompressSync(data)),
  };
}

export function measureInitialJs(distDir: string, entry = 'index.html'): Bytes & { files: string[] } {
  const files = initialJsFiles(readManifest(distDir), entry);
  const total: Bytes = { raw: 0, gzip: 0, brotli: 0 };
  for (const file of files) {
    const bytes = servedBytes(path.join(distDir, file));
    total.raw += bytes.raw;
    total.gzip += bytes.gzip;
    total.brotli += bytes.brotli;
  }
  return { files, ...total };
}

export const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
