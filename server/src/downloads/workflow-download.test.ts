// A workflow app's download, wired to what the workflows feature stores: after the configuration is
// saved (and checked against Dify), the zip fits the Dify app's mode and input form.
import { afterAll, expect, it } from 'vitest';
import { createDifyTestContext, SUPPORT_BOT_APP } from '../test-support/dify-app.ts';

const KEY = 'app-downloadDifyKey5678';
const tone = { select: { label: 'Tone', variable: 'tone', required: false, options: ['dry', 'warm'] } };
const ctx = await createDifyTestContext({}, { apiKey: KEY, app: { ...SUPPORT_BOT_APP, userInputForm: [...SUPPORT_BOT_APP.userInputForm, tone] } });
const { dify } = ctx;
const owner = await ctx.tokenFor('workflow-downloader');
afterAll(() => ctx.close());

it('gives {slug}-workflow-app.zip with the chat app and the Dify form once the configuration was saved', async () => {
  const headers = { authorization: `Bearer ${owner}` };
  const created = await ctx.app.inject({
    method: 'POST',
    url: '/api/app/',
    headers,
    payload: { name: 'Support Flow', type: 'workflow', price_cents: 15, provider_config: { app_id: 'dify-app-1', api_key: KEY, base_url: dify.baseUrl } },
  });
  expect(created.statusCode).toBe(201);
  const { slug } = created.json() as { slug: string };
  const saved = await ctx.app.inject({
    method: 'PATCH',
    url: `/api/app/${slug}/workflow/`,
    headers,
    payload: { provider_config: { base_url: dify.baseUrl, api_key: '••••5678', app_id: 'dify-app-1' } },
  });
  expect(saved.statusCode).toBe(200);
  expect(saved.json().app_info.mode).toBe('advanced-chat');

  const response = await ctx.app.inject({ method: 'GET', url: `/api/app/${slug}/download-frontend?type=completion`, headers });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-disposition']).toBe(`attachment; filename="${slug}-workflow-app.zip"`);
  const { fromBuffer } = await import('yauzl');
  const files = await new Promise<Map<string, string>>((resolve, reject) => {
    fromBuffer(response.rawPayload, { lazyEntries: true }, (error, archive) => {
      if (error) return reject(error);
      const found = new Map<string, string>();
      archive.on('end', () => resolve(found));
      archive.on('entry', (entry) => {
        archive.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            found.set(entry.fileName.slice(entry.fileName.indexOf('/') + 1), Buffer.concat(chunks).toString('utf8'));
            archive.readEntry();
          });
        });
      });
      archive.readEntry();
    });
  });
  expect(files.get('src/App.tsx')).toContain('New conversation');
  for (const content of files.values()) expect(content).not.toContain(KEY);
  expect(JSON.parse(files.get('src/app-description.json')!)).toMatchObject({
    name: 'Support Flow',
    priceCents: 15,
    kind: 'chat',
    source: 'workflow',
    fields: [
      { name: 'topic', label: 'Topic', control: 'text', required: true, maxLength: 48 },
      { name: 'tone', label: 'Tone', control: 'select', required: false, options: ['dry', 'warm'] },
    ],
  });
});
