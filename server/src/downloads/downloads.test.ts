import { beforeAll, describe, expect, it } from 'vitest';
import { fromBuffer } from 'yauzl';
import { createAppsService } from '../apps/service.ts';
import { testContextForFile } from '../test-support/app.ts';
import { createDownloadsService } from './service.ts';

const ctx = await testContextForFile();
const owner = await ctx.tokenFor('downloader', { name: 'Dana Downloader' });
const stranger = await ctx.tokenFor('download-stranger');

const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, token: string | null = owner) =>
  ctx.app.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {}, ...(payload ? { payload } : {}) });

const createApp = async (payload: object) => {
  const response = await call('POST', '/api/app/', payload);
  expect(response.statusCode).toBe(201);
  return response.json() as { slug: string; id: string };
};

/** Every entry of a zip: name → content, in archive order, plus each entry's stored time. */
function unzip(buffer: Buffer): Promise<{ names: string[]; files: Map<string, string>; times: string[] }> {
  return new Promise((resolve, reject) => {
    fromBuffer(buffer, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      const names: string[] = [];
      const times: string[] = [];
      const files = new Map<string, string>();
      zip.on('error', reject);
      zip.on('end', () => resolve({ names, files, times }));
      zip.on('entry', (entry) => {
        names.push(entry.fileName);
        times.push(`${entry.lastModFileDate}:${entry.lastModFileTime}`);
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            files.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

const download = (slug: string, query = '', token: string | null = owner) => call('GET', `/api/app/${slug}/download-frontend${query}`, undefined, token);

const THREE_FIELDS = {
  type: 'object',
  properties: {
    topic: { type: 'string', description: 'What the poem is about', maxLength: 120 },
    lines: { type: 'integer', minimum: 1, maximum: 12, default: 3 },
    mood: { type: 'string', enum: ['calm', 'stormy'] },
    rhyme: { type: 'boolean' },
    notes: { type: 'string' },
  },
  required: ['topic', 'lines'],
  additionalProperties: false,
};

describe('GET /api/app/{slug}/download-frontend', () => {
  let slug: string;

  beforeAll(async () => {
    ({ slug } = await createApp({ name: 'Poem Shop', description: 'Poems <on> demand', type: 'prompt', price_cents: 25 }));
    const patched = await call('PATCH', `/api/app/${slug}/prompt/`, {
      input_schema: THREE_FIELDS,
      prompt_template: 'Write a poem on {{topic}} in {{ lines }} lines, mood {{mood}}. Rhyme: {{rhyme}}. {{notes}}',
    });
    expect(patched.statusCode).toBe(200);
  });

  it('answers a zip named {slug}-completion-app.zip with a working app inside', async () => {
    const response = await download(slug, '?type=completion');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/zip');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="${slug}-completion-app.zip"`);
    expect(response.headers['cache-control']).toBe('no-store');
    const { names, files } = await unzip(response.rawPayload);
    const root = `${slug}-completion-app/`;
    expect(names).toEqual(
      [
        '.env.example',
        '.gitignore',
        'LICENSE.md',
        'README.md',
        'index.html',
        'package.json',
        'server.js',
        'src/App.tsx',
        'src/app-description.json',
        'src/app-description.ts',
        'src/fields.tsx',
        'src/layout.tsx',
        'src/main.tsx',
        'src/styles.css',
        'src/theme.ts',
        'src/tollbooth.ts',
        'src/vite-env.d.ts',
        'tsconfig.json',
        'vite.config.ts',
      ].map((name) => root + name),
    );
    // .env.example: this instance's public URL, the slug, an empty key.
    expect(files.get(`${root}.env.example`)).toContain('TOLLBOOTH_URL=http://tollbooth.test\n');
    expect(files.get(`${root}.env.example`)).toContain(`TOLLBOOTH_APP=${slug}\n`);
    expect(files.get(`${root}.env.example`)).toMatch(/^TOLLBOOTH_API_KEY=$/m);
    expect(files.get(`${root}.gitignore`)).toContain('.env');
    // Name, description and price baked in; the form generated from the input schema.
    const description = JSON.parse(files.get(`${root}src/app-description.json`)!);
    expect(description).toMatchObject({ slug, name: 'Poem Shop', description: 'Poems <on> demand', priceCents: 25, kind: 'completion', source: 'prompt' });
    expect(description.fields).toEqual([
      { name: 'topic', label: 'Topic', description: 'What the poem is about', control: 'text', required: true, maxLength: 120 },
      { name: 'lines', label: 'Lines', description: '', control: 'integer', required: true, default: 3, minimum: 1, maximum: 12 },
      { name: 'mood', label: 'Mood', description: '', control: 'select', required: false, options: ['calm', 'stormy'] },
      { name: 'rhyme', label: 'Rhyme', description: '', control: 'boolean', required: false },
      { name: 'notes', label: 'Notes', description: '', control: 'paragraph', required: false },
    ]);
    expect(files.get(`${root}index.html`)).toContain('<title>Poem Shop</title>');
    expect(files.get(`${root}README.md`)).toContain('$0.25 per call');
    expect(files.get(`${root}README.md`)).toContain('npm install\nTOLLBOOTH_API_KEY=tb_your_key npm run dev');
    expect(files.get(`${root}src/App.tsx`)).toContain("callApp('completion'");
    // Versions pinned exactly; nothing at run time but React.
    const manifest = JSON.parse(files.get(`${root}package.json`)!);
    expect(manifest.name).toBe(`${slug}-completion-app`);
    expect(Object.keys(manifest.dependencies)).toEqual(['react', 'react-dom']);
    for (const version of [...Object.values(manifest.dependencies), ...Object.values(manifest.devDependencies)]) expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    // No token left unfilled anywhere.
    for (const [name, content] of files) expect(content, name).not.toMatch(/__[A-Z_]+__/);
  });

  it('gives the chat app for type=chat, without the query field among the settings', async () => {
    const response = await download(slug, '?type=chat');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-disposition']).toBe(`attachment; filename="${slug}-chat-app.zip"`);
    const { files } = await unzip(response.rawPayload);
    expect(files.get(`${slug}-chat-app/src/App.tsx`)).toContain('New conversation');
    expect(JSON.parse(files.get(`${slug}-chat-app/src/app-description.json`)!).kind).toBe('chat');
  });

  it('follows the interaction mode when no type is given', async () => {
    const chatty = await createApp({ name: 'Chatty', type: 'prompt', interaction_mode: 'chat' });
    const response = await download(chatty.slug);
    expect(response.headers['content-disposition']).toBe(`attachment; filename="${chatty.slug}-chat-app.zip"`);
    const { files } = await unzip(response.rawPayload);
    // The default schema's only field is the chat message itself.
    expect(JSON.parse(files.get(`${chatty.slug}-chat-app/src/app-description.json`)!).fields).toEqual([]);
    expect((await download(slug)).headers['content-disposition']).toBe(`attachment; filename="${slug}-completion-app.zip"`);
  });

  it('is deterministic: the same configuration gives byte-identical archives, a change gives another', async () => {
    const first = await download(slug, '?type=completion');
    const second = await download(slug, '?type=completion');
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    const { times } = await unzip(first.rawPayload);
    expect(new Set(times).size).toBe(1);
    expect((await call('PATCH', `/api/app/${slug}/`, { price_cents: 30 })).statusCode).toBe(200);
    const changed = await download(slug, '?type=completion');
    expect(changed.rawPayload.equals(first.rawPayload)).toBe(false);
    const { files } = await unzip(changed.rawPayload);
    expect(JSON.parse(files.get(`${slug}-completion-app/src/app-description.json`)!).priceCents).toBe(30);
  });

  it('shows a per-token app’s rate card where the app shows its price (issue 60), and each call’s exact amount from its answer', async () => {
    const { slug: perToken } = await createApp({
      name: 'Token Poems',
      type: 'prompt',
      pricing: { form: 'per_token', input_per_mtok_micros: 2_000_000, output_per_mtok_micros: 8_000_000, call_micros: 1_000 },
    });
    const response = await download(perToken, '?type=completion');
    expect(response.statusCode, response.body).toBe(200);
    const { files } = await unzip(response.rawPayload);
    const root = `${perToken}-completion-app/`;
    expect(files.get(`${root}README.md`)).toContain('($2.00 in / $8.00 out per million tokens)');
    expect(files.get(`${root}README.md`)).not.toContain('per call)');
    const description = JSON.parse(files.get(`${root}src/app-description.json`)!);
    expect(description.price).toBe('$2.00 in / $8.00 out per million tokens');
    expect(description.priceLines).toEqual(['$2.00 per million input tokens', '$8.00 per million output tokens', 'plus $0.001 per call']);
    // The header shows the card; the usage line the call's own amount, read from its answer's total_price.
    expect(files.get(`${root}src/layout.tsx`)).toContain('{app.price}');
    expect(files.get(`${root}src/layout.tsx`)).toContain('formatDollarsText(usage.total_price)');
    // A whole-cent price per call reads as before.
    const { files: perCall } = await unzip((await download(slug, '?type=completion')).rawPayload);
    expect(JSON.parse(perCall.get(`${slug}-completion-app/src/app-description.json`)!).price).toBe('$0.30 per call');
  });

  it('is for anyone who may call the app: a caller of a live public or embed app gets the same zip, else 404; no token 401', async () => {
    // A draft app is the owner's alone.
    const draft = await download(slug, '?type=completion', stranger);
    expect(draft.statusCode).toBe(404);
    expect(draft.json()).toMatchObject({ code: 'not_found', status: 404 });
    expect((await call('PATCH', `/api/app/${slug}/update_status/`, { status: 'live' })).statusCode).toBe(200);
    // Live but private: still not callable by others.
    expect((await call('PATCH', `/api/app/${slug}/`, { visibility: 'private' })).statusCode).toBe(200);
    expect((await download(slug, '?type=completion', stranger)).statusCode).toBe(404);
    for (const visibility of ['public', 'embed']) {
      expect((await call('PATCH', `/api/app/${slug}/`, { visibility })).statusCode).toBe(200);
      const foreign = await download(slug, '?type=completion', stranger);
      expect(foreign.statusCode).toBe(200);
      expect(foreign.rawPayload.equals((await download(slug, '?type=completion')).rawPayload)).toBe(true);
      const { files } = await unzip(foreign.rawPayload);
      const everything = [...files.values()].join('\n');
      // Only what a caller sees anyway: no prompt, no key; the caller's own key goes in the .env.
      expect(everything).not.toMatch(/tb_live_|sk_/);
      expect(everything).not.toContain('Write a poem on');
    }
    expect((await download(slug, '?type=completion', null)).statusCode).toBe(401);
    expect((await download('no-such-app', '?type=completion')).statusCode).toBe(404);
  });

  it('refuses a bad type with a 400 naming the field', async () => {
    const response = await download(slug, '?type=workflow');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_param', params: 'type', status: 400 });
    expect(response.json().message).toMatch(/^type: /);
  });

  it('names a workflow app {slug}-workflow-app.zip and fits the app to its Dify mode', async () => {
    const flow = await createApp({ name: 'Dify Helper', type: 'workflow', provider_config: { app_id: 'dify-1', api_key: 'app-SecretKey9876' } });
    const plain = await download(flow.slug, '?type=completion');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-disposition']).toBe(`attachment; filename="${flow.slug}-workflow-app.zip"`);
    const { files } = await unzip(plain.rawPayload);
    expect(JSON.parse(files.get(`${flow.slug}-workflow-app/src/app-description.json`)!)).toMatchObject({
      kind: 'completion',
      source: 'workflow',
      fields: [{ name: 'query', control: 'paragraph', required: true }],
    });
    // The creator's workflow key is nowhere in the archive.
    for (const content of files.values()) expect(content).not.toContain('SecretKey9876');

    // With the Dify app info the workflows feature stores: a chat app with Dify's fields, still named as a workflow.
    const downloads = createDownloadsService({
      apps: createAppsService({ db: ctx.database.db, config: ctx.config }),
      prompts: {
        readActivePromptConfig: async () => {
          throw new Error('a workflow app has no prompt configuration');
        },
      },
      publicUrl: ctx.config.publicUrl,
      readWorkflowAppInfo: async (app) =>
        app.id === flow.id
          ? {
              name: 'Helper',
              mode: 'advanced-chat',
              user_input_form: [
                { 'text-input': { label: 'Your name', variable: 'name', required: true, max_length: 48 } },
                { select: { label: 'Language', variable: 'language', required: false, options: ['en', 'fr'], default: 'en' } },
                { file: { label: 'Attachment', variable: 'attachment' } },
              ],
            }
          : null,
    });
    const ownerId = (await ctx.database.db.query<{ owner_id: string }>('SELECT owner_id FROM apps WHERE id = $1', [flow.id])).rows[0]!.owner_id;
    const chat = await downloads.downloadFrontend(flow.slug, ownerId, 'completion');
    expect(chat.fileName).toBe(`${flow.slug}-workflow-app.zip`);
    const chunks: Buffer[] = [];
    for await (const chunk of chat.stream) chunks.push(chunk as Buffer);
    const chatFiles = (await unzip(Buffer.concat(chunks))).files;
    expect(chatFiles.get(`${flow.slug}-workflow-app/src/App.tsx`)).toContain('New conversation');
    expect(JSON.parse(chatFiles.get(`${flow.slug}-workflow-app/src/app-description.json`)!).fields).toEqual([
      { name: 'name', label: 'Your name', description: '', control: 'text', required: true, maxLength: 48 },
      { name: 'language', label: 'Language', description: '', control: 'select', required: false, default: 'en', options: ['en', 'fr'] },
    ]);
  });
});
