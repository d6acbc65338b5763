// Uploads have a per-user quota and a retention period with a sweeper.
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import { sweepExpiredUploads } from './files.ts';

let ctx: TestContext;
let base: string;
let owner: string;
let slug: string;

beforeAll(async () => {
  ctx = await createTestContext({ UPLOAD_QUOTA_MB: '1', UPLOAD_RETENTION_DAYS: '30' });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  owner = await ctx.tokenFor('uploader');
  const created = await ctx.api('POST', '/api/app/', owner, { name: 'Uploads', type: 'prompt', visibility: 'public' });
  slug = created.json().slug;
});
afterAll(async () => {
  await ctx?.close();
});

const upload = (size: number) => {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(size).fill(97)]), 'notes.txt');
  return fetch(`${base}/api/app/${slug}/file-upload/`, { method: 'POST', headers: { authorization: `Bearer ${owner}` }, body: form });
};

describe('uploads', () => {
  it('stop at the per-user quota with 413, and keep nothing over it', async () => {
    expect((await upload(600 * 1024)).status).toBe(201);
    const over = await upload(600 * 1024);
    expect(over.status).toBe(413);
    expect((await over.json()).message).toContain('quota of 1 MB');
    const { rows } = await ctx.database.db.query('SELECT 1 FROM uploaded_files');
    expect(rows).toHaveLength(1);
  });

  it('are removed with their files after the retention period', async () => {
    const { rows } = await ctx.database.db.query<{ storage_path: string }>('SELECT storage_path FROM uploaded_files');
    expect(existsSync(rows[0]!.storage_path)).toBe(true);
    expect(await sweepExpiredUploads(ctx.database.db, 30)).toBe(0);
    await ctx.database.db.query("UPDATE uploaded_files SET created_at = now() - interval '31 days'");
    expect(await sweepExpiredUploads(ctx.database.db, 30)).toBe(1);
    expect(existsSync(rows[0]!.storage_path)).toBe(false);
    // The quota is free again.
    expect((await upload(600 * 1024)).status).toBe(201);
  });
});
