// The public page's snippets run as pasted (with a real key in place of YOUR_API_KEY) against a
// listening server: curl in a shell, the fetch snippet in Node, the requests snippet in Python.
// Each call is a real, charged call answered by a provider fake (never the free demo model).
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import type { FakeProviderServer } from '../test-support/fakes/http-fake.ts';
import { startOpenAIFake } from '../test-support/fakes/openai-fake.ts';

const run = promisify(execFile);
const PRICE = 25;

let ctx: TestContext;
let upstream: FakeProviderServer;
let ownerToken: string;
let callerToken: string;
let apiKey: string;
let slug: string;
let chatSlug: string;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const hasPythonRequests = (() => {
  try {
    execFileSync('python3', ['-c', 'import requests'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

type Method = 'GET' | 'POST' | 'PATCH';
const api = (method: Method, url: string, token: string | null, payload?: object) =>
  ctx.app.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {}, ...(payload ? { payload } : {}) });
const credits = async () => (await api('GET', '/api/billing/balance/', callerToken)).json().credits_cents as number;
const snippetsOf = async (appSlug: string) => {
  const response = await api('GET', `/api/catalog/${appSlug}`, null);
  expect(response.statusCode).toBe(200);
  return response.json().snippets as { curl: string; javascript: string; python: string; dify_sdk: string; openai_sdk: string };
};
const withKey = (snippet: string) => {
  expect(snippet).toContain('YOUR_API_KEY');
  return snippet.replaceAll('YOUR_API_KEY', apiKey);
};
/** What the provider was asked last: the rendered prompt proves the snippet's inputs arrived. */
const lastPrompt = () => {
  const sent = upstream.lastRequest().body as { messages: { role: string; content: string }[] };
  return sent.messages.at(-1)!.content;
};

beforeAll(async () => {
  upstream = await startOpenAIFake({ apiKey: 'sk-snippets' });
  const port = await freePort();
  ctx = await createTestContext({ PUBLIC_URL: `http://127.0.0.1:${port}`, OPENAI_BASE_URL: upstream.baseUrl, OPENAI_API_KEY: 'sk-snippets' });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  upstream.setBehaviour({ text: 'An autumn haiku.', usage: { inputTokens: 10, outputTokens: 4 } });

  ownerToken = await ctx.tokenFor('snippet-owner', { name: 'Basho' });
  const created = await api('POST', '/api/app/', ownerToken, { name: 'Snippet Haiku', type: 'prompt', visibility: 'public', price_cents: PRICE });
  slug = created.json().slug;
  const patched = await api('PATCH', `/api/app/${slug}/prompt/`, ownerToken, {
    prompt_template: "A {{style}} haiku about {{topic}} (it's {{lines}} lines)",
    input_schema: {
      type: 'object',
      properties: {
        topic: { type: 'string', maxLength: 100 },
        style: { type: 'string', enum: ["poet's", 'modern'] },
        lines: { type: 'integer', minimum: 3, maximum: 3 },
        mood: { type: 'string', description: 'Optional' },
      },
      required: ['topic', 'style', 'lines'],
      additionalProperties: false,
    },
  });
  expect(patched.statusCode, patched.body).toBe(200);
  await api('PATCH', `/api/app/${slug}/update_status/`, ownerToken, { status: 'live' });
  const chat = await api('POST', '/api/app/', ownerToken, {
    name: 'Snippet Chat',
    type: 'prompt',
    interaction_mode: 'chat',
    visibility: 'public',
    price_cents: PRICE,
  });
  chatSlug = chat.json().slug;
  await api('PATCH', `/api/app/${chatSlug}/update_status/`, ownerToken, { status: 'live' });

  callerToken = await ctx.tokenFor('snippet-caller');
  apiKey = (await api('POST', '/api/keys/', callerToken, { name: 'snippets' })).json().key;
}, 240_000);
afterAll(async () => {
  await ctx?.close();
  await upstream?.close();
});

/** Runs a snippet, which must print the answer and be charged PRICE once. */
async function expectAnswerCharged(snippet: () => Promise<{ stdout: string }>) {
  const before = await credits();
  const { stdout } = await snippet();
  expect(stdout.trim()).toBe('An autumn haiku.');
  expect(await credits()).toBe(before - PRICE);
}

/** Writes a snippet to a new file inside the repository, so that its imports find the installed packages: its path. */
function inRepository(name: string, code: string): string {
  mkdirSync(path.join(import.meta.dirname, '../../.tmp'), { recursive: true });
  const file = path.join(mkdtempSync(path.join(import.meta.dirname, '../../.tmp/snippet-')), name);
  writeFileSync(file, code);
  return file;
}

describe('snippets from the public page, pasted with a real key', () => {
  it('curl answers and is charged', async () => {
    const before = await credits();
    const { stdout } = await run('sh', ['-c', withKey((await snippetsOf(slug)).curl)], { timeout: 60_000 });
    expect(JSON.parse(stdout)).toMatchObject({ event: 'message', mode: 'completion', answer: 'An autumn haiku.' });
    expect(lastPrompt()).toBe("A poet's haiku about Hello! What can you do? (it's 3 lines)");
    expect(await credits()).toBe(before - PRICE);
  });

  it('JavaScript fetch answers and is charged', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tollbooth-snippet-')), 'call.mjs');
    writeFileSync(file, withKey((await snippetsOf(slug)).javascript));
    await expectAnswerCharged(() => run(process.execPath, [file], { timeout: 60_000 }));
  });

  it('the OpenAI SDK snippet answers through /v1/chat/completions and is charged', async () => {
    const file = inRepository('openai.mjs', withKey((await snippetsOf(slug)).openai_sdk));
    await expectAnswerCharged(() => run(process.execPath, [file], { timeout: 60_000 }));
    expect(lastPrompt()).toBe("A poet's haiku about Hello! What can you do? (it's 3 lines)");
  });

  it('the Dify SDK (dify-client) snippet answers and is charged', async () => {
    const file = inRepository('dify.mjs', withKey((await snippetsOf(slug)).dify_sdk));
    await expectAnswerCharged(() => run(process.execPath, [file], { timeout: 60_000 }));
    expect(lastPrompt()).toBe("A poet's haiku about Hello! What can you do? (it's 3 lines)");
  });

  it.skipIf(!hasPythonRequests)('Python requests answers and is charged', async () => {
    const code = withKey((await snippetsOf(slug)).python);
    await expectAnswerCharged(() => run('python3', ['-c', code], { timeout: 60_000 }));
  });

  it("a chat app's curl sends its query to the chat endpoint", async () => {
    const before = await credits();
    const { stdout } = await run('sh', ['-c', withKey((await snippetsOf(chatSlug)).curl)], { timeout: 60_000 });
    expect(JSON.parse(stdout)).toMatchObject({ mode: 'chat', answer: 'An autumn haiku.' });
    expect(lastPrompt()).toBe('Hello! What can you do?');
    expect(await credits()).toBe(before - PRICE);
  });
});
