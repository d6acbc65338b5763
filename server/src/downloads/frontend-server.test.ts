// Issue 24, item 5: the downloaded app's server.js spent its key for anyone (cross-origin
// text/plain posts, a forged Host, bursts without limit). Generated as the zip has it, started
// with Node against a stand-in Tollbooth that counts the calls it receives.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { rateCardOf } from '@tollbooth/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFrontendFiles } from './generate-frontend.ts';

const PRICE = 25;
let dir: string;
let tollbooth: Server;
let forwarded = 0;
let upstreamStatus = 200;
/** The answer's body, and the X-Max-Price header of each call the stand-in received. */
let upstreamBody: object = { answer: 'ok' };
const maxPrices: (string | undefined)[] = [];
const servers: ChildProcess[] = [];
let perTokenDir: string;

beforeAll(async () => {
  tollbooth = createServer((req, res) => {
    forwarded++;
    maxPrices.push(req.headers['x-max-price'] as string | undefined);
    req.resume();
    res.writeHead(upstreamStatus, { 'content-type': 'application/json' });
    res.end(JSON.stringify(upstreamBody));
  });
  await new Promise<void>((resolve) => tollbooth.listen(0, '127.0.0.1', resolve));
  dir = await mkdtemp(path.join(tmpdir(), 'frontend-server-'));
  const files = await generateFrontendFiles(
    { slug: 'poems', name: 'Poems', description: '', priceCents: PRICE, kind: 'completion', source: 'prompt', fields: [] },
    { tollboothUrl: `http://127.0.0.1:${(tollbooth.address() as AddressInfo).port}` },
  );
  for (const file of files) {
    await mkdir(path.dirname(path.join(dir, file.path)), { recursive: true });
    await writeFile(path.join(dir, file.path), file.content);
  }
  // The same app priced per token (issue 60): its least call is 0 cents.
  perTokenDir = await mkdtemp(path.join(tmpdir(), 'frontend-server-per-token-'));
  const perToken = await generateFrontendFiles(
    { slug: 'poems', name: 'Poems', description: '', priceCents: 0, kind: 'completion', source: 'prompt', fields: [] },
    {
      tollboothUrl: `http://127.0.0.1:${(tollbooth.address() as AddressInfo).port}`,
      pricing: rateCardOf({ form: 'per_token', input_per_mtok_micros: 2_000_000, output_per_mtok_micros: 8_000_000 }),
    },
  );
  for (const file of perToken) {
    await mkdir(path.dirname(path.join(perTokenDir, file.path)), { recursive: true });
    await writeFile(path.join(perTokenDir, file.path), file.content);
  }
});
afterAll(async () => {
  for (const child of servers) child.kill();
  await new Promise<void>((resolve) => tollbooth.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
  await rm(perTokenDir, { recursive: true, force: true });
});

/** Starts server.js with these settings; resolves to its base URL once it listens. */
async function start(env: Record<string, string>, cwd = dir): Promise<string> {
  const child = spawn(process.execPath, ['server.js'], { cwd, env: { PATH: process.env.PATH, TOLLBOOTH_API_KEY: 'tb_test_key', PORT: '0', ...env } });
  servers.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /on http:\/\/[^:]+:(\d+)/.exec(output);
      if (match) resolve(`http://127.0.0.1:${match[1]}`);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', () => reject(new Error(`server.js exited: ${output}`)));
  });
}

const post = (base: string, headers: Record<string, string>, body = '{"inputs":{}}') =>
  fetch(`${base}/api/completion-messages`, { method: 'POST', headers, body });

/** A raw request with any Host header (fetch will not forge one). */
const raw = (base: string, method: string, pathname: string, headers: Record<string, string>, body?: string) =>
  new Promise<number>((resolve, reject) => {
    const sent = request(`${base}${pathname}`, { method, headers }, (answer) => {
      answer.resume();
      resolve(answer.statusCode ?? 0);
    });
    sent.on('error', reject);
    sent.end(body);
  });

describe("the downloaded app's server.js", () => {
  it('refuses cross-origin and text/plain posts and a forged Host; forwards its own page’s calls', async () => {
    const base = await start({});
    const port = new URL(base).port;
    const own = `http://127.0.0.1:${port}`;
    forwarded = 0;
    const crossSite = await post(base, { origin: 'https://evil.example', 'content-type': 'text/plain' });
    expect(crossSite.status).toBe(403);
    const crossJson = await post(base, { origin: 'https://evil.example', 'content-type': 'application/json' });
    expect(crossJson.status).toBe(403);
    const noOrigin = await post(base, { 'content-type': 'application/json' });
    expect(noOrigin.status).toBe(403);
    const plain = await post(base, { origin: own, 'content-type': 'text/plain' });
    expect(plain.status).toBe(415);
    // DNS rebinding: the attacker's name resolves to this server; its Host (and Origin) are the attacker's.
    const rebound = await raw(
      base,
      'POST',
      '/api/completion-messages',
      { host: `rebind.evil.example:${port}`, origin: `http://rebind.evil.example:${port}`, 'content-type': 'application/json' },
      '{"inputs":{}}',
    );
    expect(rebound).toBe(421);
    expect(await raw(base, 'GET', '/', { host: 'rebind.evil.example' })).toBe(421);
    expect(forwarded).toBe(0);
    const fine = await post(base, { origin: own, 'content-type': 'application/json' });
    expect(fine.status).toBe(200);
    expect(forwarded).toBe(1);
    const viaLocalhost = await raw(
      base,
      'POST',
      '/api/completion-messages',
      { host: `localhost:${port}`, origin: `http://localhost:${port}`, 'content-type': 'application/json' },
      '{"inputs":{}}',
    );
    expect(viaLocalhost).toBe(200);
  });

  it('limits the calls per client per minute (RATE_LIMIT_PER_MINUTE)', async () => {
    const base = await start({ RATE_LIMIT_PER_MINUTE: '5', SPEND_CAP_CENTS: '100000' });
    const own = `http://127.0.0.1:${new URL(base).port}`;
    forwarded = 0;
    const answers = await Promise.all(Array.from({ length: 30 }, () => post(base, { origin: own, 'content-type': 'application/json' })));
    const statuses = answers.map((answer) => answer.status);
    // A minute boundary in the burst would open one more window.
    expect(forwarded).toBeGreaterThanOrEqual(5);
    expect(forwarded).toBeLessThanOrEqual(10);
    expect(statuses.filter((status) => status === 429).length).toBe(30 - forwarded);
    expect(answers.find((answer) => answer.status === 429)!.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('stops at the spend cap (SPEND_CAP_CENTS) at the app’s price; failed calls do not count', async () => {
    const base = await start({ RATE_LIMIT_PER_MINUTE: '1000', SPEND_CAP_CENTS: String(PRICE * 3) });
    const own = `http://127.0.0.1:${new URL(base).port}`;
    const headers = { origin: own, 'content-type': 'application/json' };
    forwarded = 0;
    upstreamStatus = 502;
    for (let i = 0; i < 4; i++) expect((await post(base, headers)).status).toBe(502);
    upstreamStatus = 200;
    for (let i = 0; i < 3; i++) expect((await post(base, headers)).status).toBe(200);
    const capped = await post(base, headers);
    expect(capped.status).toBe(402);
    expect((await capped.json()).code).toBe('spend_cap_reached');
    expect(forwarded).toBe(7);
  });

  it('counts a per-token app’s calls at what each answer says it cost, and asks Tollbooth to refuse one above what the day has left (issue 60)', async () => {
    const base = await start({ RATE_LIMIT_PER_MINUTE: '1000', SPEND_CAP_CENTS: '1' }, perTokenDir);
    const own = `http://127.0.0.1:${new URL(base).port}`;
    const headers = { origin: own, 'content-type': 'application/json' };
    forwarded = 0;
    maxPrices.length = 0;
    // Each answer cost 0.4 of a cent: a cap of 1 cent takes three of them (the third goes over), then refuses.
    upstreamBody = { answer: 'ok', metadata: { usage: { total_price: '0.0040000', currency: 'USD' } } };
    try {
      for (let i = 0; i < 3; i++) {
        const answer = await post(base, headers);
        expect(answer.status).toBe(200);
        // Read to its end: the cost is counted before the answer's last bytes are sent.
        expect(await answer.json()).toMatchObject({ answer: 'ok' });
      }
      const capped = await post(base, headers);
      expect(capped.status).toBe(402);
      expect((await capped.json()).code).toBe('spend_cap_reached');
    } finally {
      upstreamBody = { answer: 'ok' };
    }
    expect(forwarded).toBe(3);
    expect(maxPrices).toEqual(['0.010000', '0.006000', '0.002000']);
  });
});
