// Build step: writes a brotli (.br) and a gzip (.gz) copy beside every compressible file of the
// build, at the highest settings (brotli 11, zopfli for gzip), so the server sends the smallest
// encoding the browser accepts and never compresses a static file per request
// (@fastify/static's preCompressed; docs/decisions/0020-web-delivery.md).
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { gzipAsync as zopfliGzip } from '@gfx/zopfli';

const brotli = promisify(brotliCompress);
const gzipLevel9 = promisify(gzip);

/** Text formats (and fonts without their own compression); images and woff2 are compressed already. */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|xml|map|ttf|otf|eot|wasm)$/;
/** Below this an encoding saves next to nothing; the server's on-the-fly threshold for API JSON is the same. */
export const PRECOMPRESS_MIN_BYTES = 1024;
/**
 * Zopfli writes gzip about 3% smaller than zlib's level 9 but is ~100 times slower: it is used for
 * files up to this size (every chunk but Monaco's), zlib level 9 above it, to keep the build short.
 */
export const ZOPFLI_MAX_BYTES = 1024 * 1024;

export async function encodeBrotli(content: Buffer, mode = constants.BROTLI_MODE_TEXT): Promise<Buffer> {
  return brotli(content, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: content.length,
      [constants.BROTLI_PARAM_MODE]: mode,
    },
  });
}

export async function encodeGzip(content: Buffer): Promise<Buffer> {
  if (content.length > ZOPFLI_MAX_BYTES) return gzipLevel9(content, { level: 9 });
  return Buffer.from(await zopfliGzip(content, { numiterations: 15 }));
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries
      .filter((entry) => !entry.name.startsWith('.'))
      .map((entry) => (entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)])),
  );
  return nested.flat();
}

/** Writes file.br and file.gz when each is smaller than the file; returns the paths written. */
export async function precompressFile(file: string): Promise<string[]> {
  const content = await readFile(file);
  const mode = /\.(?:ttf|otf|eot|wasm)$/.test(file) ? constants.BROTLI_MODE_GENERIC : constants.BROTLI_MODE_TEXT;
  const [br, gz] = await Promise.all([encodeBrotli(content, mode), encodeGzip(content)]);
  const written: string[] = [];
  for (const [suffix, encoded] of [
    ['.br', br],
    ['.gz', gz],
  ] as const) {
    if (encoded.length >= content.length) continue;
    await writeFile(file + suffix, encoded);
    written.push(file + suffix);
  }
  return written;
}

/** Precompresses every compressible file of at least PRECOMPRESS_MIN_BYTES under dir (public files too). */
export async function precompressDirectory(dir: string): Promise<string[]> {
  const candidates: string[] = [];
  for (const file of await filesUnder(dir)) {
    if (COMPRESSIBLE.test(file) && (await stat(file)).size >= PRECOMPRESS_MIN_BYTES) candidates.push(file);
  }
  const written: string[] = [];
  // One file at a time: brotli 11 and zopfli each keep a core busy, and the machine may be shared.
  for (const file of candidates) written.push(...(await precompressFile(file)));
  return written;
}
