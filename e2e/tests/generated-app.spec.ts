// The Download App zip, followed as its README says: unzip, `npm install`, `npm run build`, start
// the generated server with a caller's API key against the running Tollbooth, and use the app in
// Chromium. npm uses the machine's shared cache (--prefer-offline), and the app's dependency list is
// tiny, so installing takes seconds once the cache is warm.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { fromBuffer } from 'yauzl';
import { accessTokenOf, signUp } from './support.ts';

const unique = () => randomBytes(3).toString('hex');

/** Unzips an archive into a folder with yauzl (no unzip binary needed). */
function extractZip(zip: Buffer, into: string): Promise<void> {
  return new Promise((resolve, reject) => {
    fromBuffer(zip, { lazyEntries: true }, (error, archive) => {
      if (error) return reject(error);
      archive.on('error', reject);
      archive.on('end', resolve);
      archive.on('entry', (entry) => {
        const target = path.resolve(into, entry.fileName);
        if (!target.startsWith(path.resolve(into) + path.sep)) return reject(new Error(`unsafe path ${entry.fileName}`));
        if (entry.fileName.endsWith('/')) {
          mkdirSync(target, { recursive: true });
          return archive.readEntry();
        }
        mkdirSync(path.dirname(target), { recursive: true });
        archive.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          pipeline(stream, createWriteStream(target)).then(() => archive.readEntry(), reject);
        });
      });
      archive.readEntry();
    });
  });
}

/** The environment without the npm_* variables of the npm run that started Playwright (workspace flags would leak into the child npm). */
function cleanEnv(extra: Record<string, string> = {}) {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !name.toLowerCase().startsWith('npm_')) env[name] = value;
  return { ...env, ...extra };
}

function run(command: string, args: string[], cwd: string, env = cleanEnv()): Promise<{ code: number; output: string; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, output, seconds: (Date.now() - started) / 1000 }));
  });
}

/** Starts `node server.js` (what `npm start` runs) on a free port; resolves with its URL. */
function startGeneratedServer(dir: string, env: Record<string, string>): Promise<{ url: string; process: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['server.js'], {
      cwd: dir,
      env: cleanEnv({ PORT: '0', HOST: '127.0.0.1', ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve({ url: match[1]!, process: child });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`generated server exited with ${code}: ${output}`)));
  });
}

async function createLiveApp(api: APIRequestContext, token: string, payload: object) {
  const headers = { authorization: `Bearer ${token}` };
  const created = await api.post('/api/app/', { headers, data: { visibility: 'public', ...payload } });
  expect(created.status()).toBe(201);
  const { slug } = (await created.json()) as { slug: string };
  expect((await api.patch(`/api/app/${slug}/update_status/`, { headers, data: { status: 'live' } })).status()).toBe(200);
  return slug;
}

async function download(api: APIRequestContext, token: string, slug: string, type: string) {
  const response = await api.get(`/api/app/${slug}/download-frontend?type=${type}`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status()).toBe(200);
  return { zip: await response.body(), disposition: response.headers()['content-disposition'] };
}

async function creditsCents(api: APIRequestContext, token: string) {
  const response = await api.get('/api/auth/profile/', { headers: { authorization: `Bearer ${token}` } });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { creator: { credits_cents: number } }).creator.credits_cents;
}

/** Everything the page sends and receives, as text, to look for the key in. */
function recordNetwork(page: Page) {
  const pending: Promise<string>[] = [];
  page.on('request', (request) => {
    pending.push(request.allHeaders().then((headers) => `${request.method()} ${request.url()} ${JSON.stringify(headers)} ${request.postData() ?? ''}`));
  });
  page.on('response', (response) => {
    pending.push(
      Promise.all([response.allHeaders(), response.text().catch(() => '')]).then(
        ([headers, body]) => `${response.status()} ${response.url()} ${JSON.stringify(headers)} ${body}`,
      ),
    );
  });
  return async () => (await Promise.all(pending)).join('\n');
}

test('a downloaded completion app and chat app install, build and work against Tollbooth without exposing the key', async ({ browser, request }) => {
  test.setTimeout(300_000);
  const id = unique();
  const work = mkdtempSync(path.join(tmpdir(), 'tollbooth-generated-'));
  const servers: ChildProcess[] = [];
  const ownerContext = await browser.newContext();
  const callerContext = await browser.newContext();
  try {
    // The creator publishes a 25-cent completion app with three typed fields and a 10-cent chat app.
    const ownerPage = await ownerContext.newPage();
    await signUp(ownerPage);
    const owner = await accessTokenOf(ownerPage);
    const completionSlug = await createLiveApp(request, owner, {
      name: `Gen Poems ${id}`,
      description: 'Short poems to order',
      type: 'prompt',
      price_cents: 25,
    });
    const schema = {
      type: 'object',
      properties: {
        topic: { type: 'string', description: 'What the poem is about', maxLength: 100 },
        lines: { type: 'integer', minimum: 1, maximum: 8, default: 3 },
        mood: { type: 'string', enum: ['calm', 'stormy'] },
      },
      required: ['topic', 'lines', 'mood'],
      additionalProperties: false,
    };
    const patched = await request.patch(`/api/app/${completionSlug}/prompt/`, {
      headers: { authorization: `Bearer ${owner}` },
      data: { input_schema: schema, prompt_template: 'Write {{lines}} lines about {{topic}}, in a {{mood}} mood.' },
    });
    expect(patched.status()).toBe(200);
    const chatSlug = await createLiveApp(request, owner, { name: `Gen Chat ${id}`, type: 'prompt', interaction_mode: 'chat', price_cents: 10 });

    // A second user pays for the calls with an API key.
    const callerPage = await callerContext.newPage();
    await signUp(callerPage);
    const caller = await accessTokenOf(callerPage);
    const keyResponse = await request.post('/api/keys/', { headers: { authorization: `Bearer ${caller}` }, data: { name: 'Generated app' } });
    expect(keyResponse.status()).toBe(201);
    const apiKey = ((await keyResponse.json()) as { key: string }).key;

    // Download both, unzip, install and build them side by side.
    const apps = await Promise.all(
      [
        [completionSlug, 'completion'],
        [chatSlug, 'chat'],
      ].map(async ([slug, type]) => {
        const { zip, disposition } = await download(request, owner, slug!, type!);
        expect(disposition).toBe(`attachment; filename="${slug}-${type}-app.zip"`);
        await extractZip(zip, work);
        const dir = path.join(work, `${slug}-${type}-app`);
        const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], dir);
        expect(install.code, install.output).toBe(0);
        const build = await run('npm', ['run', 'build'], dir);
        expect(build.code, build.output).toBe(0);
        console.log(`${type} app: zip ${zip.length} bytes, npm install ${install.seconds.toFixed(1)} s, npm run build ${build.seconds.toFixed(1)} s`);
        return dir;
      }),
    );
    const [completionDir, chatDir] = apps as [string, string];

    // Without a key the server refuses to start, saying why.
    const keyless = await run(process.execPath, ['server.js'], completionDir, cleanEnv({ TOLLBOOTH_API_KEY: '', PORT: '0' }));
    expect(keyless.code).toBe(1);
    expect(keyless.output).toContain('TOLLBOOTH_API_KEY is not set');

    // .env.example already points at this Tollbooth and the app: only the key is given.
    const completionServer = await startGeneratedServer(completionDir, { TOLLBOOTH_API_KEY: apiKey });
    servers.push(completionServer.process);
    const chatServer = await startGeneratedServer(chatDir, { TOLLBOOTH_API_KEY: apiKey });
    servers.push(chatServer.process);

    const before = await creditsCents(request, caller);
    const visitor = await browser.newContext();
    const page = await visitor.newPage();
    const networkLog = recordNetwork(page);

    // The completion app: the form from the schema, a streamed answer, usage and cost.
    await page.goto(completionServer.url);
    await expect(page.getByRole('heading', { name: `Gen Poems ${id}`, level: 1 })).toBeVisible();
    await expect(page.getByText('Short poems to order')).toBeVisible();
    await expect(page.getByText('$0.25 per call')).toBeVisible();
    await page.getByLabel('Topic').fill('lighthouses');
    await expect(page.getByLabel('Lines')).toHaveValue('3');
    await page.getByLabel('Lines').fill('4');
    await page.getByLabel('Mood').selectOption('stormy');
    const completionResponse = page.waitForResponse((response) => response.url().endsWith('/api/completion-messages'));
    await page.getByRole('button', { name: 'Generate' }).click();
    // The stream is passed through as Server-Sent Events, not buffered into one JSON answer.
    expect((await completionResponse).headers()['content-type']).toContain('text/event-stream');
    const answer = page.getByRole('region', { name: 'Answer' });
    await expect(answer).toContainText('lighthouses');
    await expect(answer).toContainText('stormy');
    await expect(answer.getByText(/\d+ tokens/)).toBeVisible();
    await expect(answer.getByText('cost $0.25')).toBeVisible();
    await expect.poll(() => creditsCents(request, caller)).toBe(before - 25);

    // The chat app: two messages in one conversation.
    await page.goto(chatServer.url);
    await expect(page.getByRole('heading', { name: `Gen Chat ${id}`, level: 1 })).toBeVisible();
    const chatCall = page.waitForRequest((sent) => sent.url().endsWith('/api/chat-messages'));
    await page.getByLabel('Message').fill('Hello there');
    await page.getByRole('button', { name: 'Send' }).click();
    expect((await chatCall).postDataJSON()).toMatchObject({ query: 'Hello there', conversation_id: '' });
    const conversation = page.getByRole('region', { name: 'Conversation' });
    await expect(conversation.locator('.message-assistant .bubble').first()).toContainText('Hello there');
    await expect(conversation.getByText('cost $0.10')).toHaveCount(1);
    const firstAnswer = await (await chatCall).response();
    const conversationId = /"conversation_id":"([0-9a-f-]{36})"/.exec((await firstAnswer?.text()) ?? '')?.[1];
    expect(conversationId).toBeTruthy();

    const followUp = page.waitForRequest((sent) => sent.url().endsWith('/api/chat-messages'));
    await page.getByLabel('Message').fill('Tell me more');
    await page.getByLabel('Message').press('Enter');
    expect((await followUp).postDataJSON()).toMatchObject({ query: 'Tell me more', conversation_id: conversationId });
    await expect(conversation.locator('.message-user')).toHaveCount(2);
    await expect(conversation.getByText('cost $0.10')).toHaveCount(2);
    await expect(page.getByRole('alert')).toHaveCount(0);
    await expect.poll(() => creditsCents(request, caller)).toBe(before - 25 - 20);

    await page.getByRole('button', { name: 'New conversation' }).click();
    await expect(conversation.locator('.message')).toHaveCount(0);

    // Nothing the browser sent or received carried the key.
    const log = await networkLog();
    expect(log).toContain('/api/chat-messages');
    expect(log).not.toContain(apiKey);
    expect(log).not.toContain(apiKey.slice(0, 16));
    await visitor.close();
  } finally {
    for (const server of servers) server.kill('SIGTERM');
    await ownerContext.close();
    await callerContext.close();
    rmSync(work, { recursive: true, force: true });
  }
});
