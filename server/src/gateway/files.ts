// POST /api/app/{slug}/file-upload/: a caller uploads a file (multipart field "file", at most
// 15 MB) to reference in a later call's `files`. Files are kept under DATA_DIR/uploads, within a
// per-user quota (UPLOAD_QUOTA_MB), and removed after UPLOAD_RETENTION_DAYS by a sweeper.
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { MultipartFile } from '@fastify/multipart';
import type { UploadedFile } from '@tollbooth/contract';
import type { FastifyRequest } from 'fastify';
import type { Database } from '../db/client.ts';
import { AppError } from '../platform/errors.ts';
import { deleteExpiredUploads, insertUploadedFile, sumUploadedBytes } from './queries.ts';

export const MAX_UPLOAD_BYTES = 15 * 1024 * 1024;

/** What may be uploaded, by extension, with the MIME type we record. Images can go to vision models. */
export const ALLOWED_UPLOADS: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
  pdf: 'application/pdf',
};

export type { UploadedFile } from '@tollbooth/contract';

/**
 * A multipart body that cannot be read (no boundary, truncated, malformed part headers, not
 * multipart at all) is the caller's mistake: 400 naming the file field, never a 500 (issue 24).
 * Limits (413) and our own errors keep their answers.
 */
export function malformedMultipart(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const status = (error as { statusCode?: number }).statusCode;
  if (status === 413) return error;
  const reason = error instanceof Error ? error.message.replace(/^Multipart:\s*/i, '') : 'unreadable';
  return new AppError('invalid_param', `file: the multipart/form-data body is malformed (${reason.slice(0, 100)})`, 'file');
}

/** A media type's name ends where a token character does not follow (RFC 9110's tchar). */
const NAMES_MULTIPART_FORM_DATA = /^\s*multipart\/form-data(?![\w!#$%&'*+.^`|~-])/i;
/** What Fastify reads as multipart/form-data: the type alone, or its parameters after a ";". */
const READABLE_MULTIPART_FORM_DATA = /^\s*multipart\/form-data\s*(?:;|$)/i;

/**
 * onRequest of the upload routes: a Content-Type that names multipart/form-data but cannot be read
 * ("multipart/form-data boundary=x", without the ";") is a malformed multipart body like the others,
 * 400 naming the file field. Fastify finds no parser for a type it cannot read and would answer 415,
 * which tells the caller to send another type when the one it sent is the right one, badly written.
 */
export async function refuseUnreadableMultipartType(request: FastifyRequest): Promise<void> {
  const type = request.headers['content-type'];
  if (type !== undefined && NAMES_MULTIPART_FORM_DATA.test(type) && !READABLE_MULTIPART_FORM_DATA.test(type)) {
    throw malformedMultipart(new Error('its Content-Type cannot be read: the boundary goes after "multipart/form-data;"'));
  }
}

export async function storeUpload(
  db: Database,
  dataDir: string,
  owner: { userId: string; appId: string },
  file: MultipartFile | undefined,
  quotaBytes = Number.POSITIVE_INFINITY,
): Promise<UploadedFile> {
  if (!file) throw new AppError('invalid_param', 'file: no file uploaded (send multipart/form-data with a "file" field)', 'file');
  if (file.fieldname !== 'file') throw new AppError('invalid_param', `${file.fieldname}: the file field must be named "file"`, 'file');
  const name = path.basename(file.filename || 'upload').slice(0, 255);
  const extension = path.extname(name).slice(1).toLowerCase();
  const mimeType = ALLOWED_UPLOADS[extension];
  if (!mimeType) {
    file.file.resume();
    throw new AppError(
      'unsupported_media_type',
      `Files of type ".${extension || '?'}" are not supported; allowed: ${Object.keys(ALLOWED_UPLOADS).join(', ')}`,
      'file',
    );
  }
  const used = await sumUploadedBytes(db, owner.userId);
  const overQuota = () =>
    new AppError('payload_too_large', `file: your uploads would exceed the quota of ${Math.round(quotaBytes / 1024 / 1024)} MB; older files expire`, 'file');
  if (used >= quotaBytes) {
    file.file.resume();
    throw overQuota();
  }
  const id = randomUUID();
  const directory = path.join(dataDir, 'uploads', owner.userId);
  await mkdir(directory, { recursive: true });
  const storagePath = path.join(directory, `${id}.${extension}`);
  const tooLarge = () => new AppError('payload_too_large', `file: larger than the ${MAX_UPLOAD_BYTES / 1024 / 1024} MB limit`, 'file');
  // An error of the upload stream itself (now or before we read it) is the body's fault (truncated, malformed): a 400.
  let bodyError: unknown = null;
  file.file.once('error', (error) => {
    bodyError = error;
  });
  try {
    await pipeline(file.file, createWriteStream(storagePath));
  } catch (error) {
    await rm(storagePath, { force: true });
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
    if (error === bodyError || error === file.file.errored) throw malformedMultipart(error);
    throw error;
  }
  if (file.file.truncated) {
    await rm(storagePath, { force: true });
    throw tooLarge();
  }
  if (used + file.file.bytesRead > quotaBytes) {
    await rm(storagePath, { force: true });
    throw overQuota();
  }
  const stored = await insertUploadedFile(db, {
    id,
    userId: owner.userId,
    appId: owner.appId,
    name,
    size: file.file.bytesRead,
    extension,
    mimeType,
    storagePath,
  });
  return {
    id,
    name,
    size: stored.size,
    extension,
    mime_type: mimeType,
    created_by: owner.userId,
    created_at: Math.floor(stored.created_at.getTime() / 1000),
  };
}

/** Removes uploads older than the retention period, rows and files; returns how many. */
export async function sweepExpiredUploads(db: Database, retentionDays: number): Promise<number> {
  const paths = await deleteExpiredUploads(db, retentionDays);
  await Promise.all(paths.map((storagePath) => rm(storagePath, { force: true })));
  return paths.length;
}
