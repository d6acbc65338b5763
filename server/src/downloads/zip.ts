// A deterministic zip stream (yazl): entries in the given order, one fixed timestamp and mode, no
// extended-timestamp field, so the same files always give the same bytes and creators can diff
// two downloads.
import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { GeneratedFile } from './generate-frontend.ts';

/**
 * 2026-01-01 00:00:00 built from local-time parts: yazl writes DOS times from local getters, so a
 * date built the same way gives the same bytes in every time zone.
 */
const FIXED_MTIME = new Date(2026, 0, 1, 0, 0, 0);
const FILE_MODE = 0o100644;

/** Streams the files as a zip archive under one top folder. */
export function zipFiles(files: GeneratedFile[], topFolder: string): Readable {
  const zip = new ZipFile();
  for (const file of files) {
    zip.addBuffer(file.content, `${topFolder}/${file.path}`, { mtime: FIXED_MTIME, mode: FILE_MODE, compress: true, forceDosTimestamp: true });
  }
  zip.end();
  return zip.outputStream as Readable;
}
