// The drain on SIGTERM (issue 57, decision 0082), on a real server process: /readyz answers 503 at
// once, new connections are still taken for the grace period and refused after it, calls and
// streams in flight finish, and the process exits 0 with every answered call charged once and its
// credit holds released. At SHUTDOWN_TIMEOUT_SECONDS what is still open is cut as a cut stream is:
// charged when part of the answer was sent, free when none was. Both databases: on PGlite the
// process's DATA_DIR is read once it has exited.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openPglite } from '../db/client.ts';
import { chargedCalls } from '../test-support/call-charges.ts';
import { createTestDatabase, preparePgliteDataDir, type TestDatabase } from '../test-support/database.ts';
import type { FakeProviderServer } from '../test-support/fakes/http-fake.ts';
import { startOpenAIFake } from '../test-support/fakes/openai-fake.ts';
import { startTestIssuer, type TestIssuer } from '../test-support/oidc-issuer.ts';
import { liveAppAndKey, type ServerProcess, startServerProcess, stopServerProcess } from '../test-support/server-process.ts';

const PRICE = 3;
const CREDITS = 500;

let issuer: TestIssuer;
let upstream: FakeProviderServer;
const servers: ServerProcess[] = [];
const databases: TestDatabase[] = [];

beforeAll(async () => {
  [issuer, upstream] = await Promise.all([startTestIssuer(), startOpenAIFake()]);
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map(stopServerProcess));
});
afterAll(async () => {
  await Promise.all([...databases.map((database) => database.cleanup()), issuer?.close(), upstream?.close()]);
});

/** A server process on a database of its own, with one live app priced PRICE and a caller's key. */
async function startWithApp(env: Record<string, string>) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tollbooth-drain-'));
  const database = process.env.DATABASE_URL ? await createTestDatabase() : null;
  if (database) databases.push(database);
  else await preparePgliteDataDir(dataDir);
  const server = await startServerProcess({
    DATA_DIR: dataDir,
    ...(database ? { DATABASE_URL: database.url! } : {}),
    SECRET_KEY: 'e'.repeat(64),
    OIDC_ISSUER: issuer.issuer,
    OIDC_CLIENT_ID: 'test-client',
    OIDC_AUDIENCE: issuer.audience,
    OPENAI_BASE_URL: upstream.baseUrl,
    OPENAI_API_KEY: 'sk-x',
    SIGNUP_CREDITS_CENTS: String(CREDITS),
    ...env,
  });
  servers.push(server);
  const owner = await issuer.sign({ sub: 'drain-owner' });
  const caller = await issuer.sign({ sub: 'drain-caller' });
  const { callUrl, key } = await liveAppAndKey(server.base, owner, caller, { name: 'Drained', priceCents: PRICE, keyName: 'drain' });
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
  /** The process's database once it has exited (PGlite's files are its own until then). */
  const openDatabase = async (): Promise<{ db: Database; close(): Promise<void> }> => {
    if (database) return { db: database.db, close: async () => undefined };
    const db = await openPglite(dataDir);
    return { db, close: () => db.close() };
  };
  return { server, url: `${server.base}${callUrl}`, key, exited, openDatabase };
}

const blockingCall = (url: string, key: string, query: string) =>
  fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ inputs: { query }, response_mode: 'blocking', user: 'drain' }),
  }).then(async (response) => ({ status: response.status, body: await response.json() }));

/** A streaming call: its events as they come; `firstMessage` resolves at the first answer chunk. */
function streamingCall(url: string, key: string, query: string) {
  let onFirst: () => void = () => undefined;
  const firstMessage = new Promise<void>((resolve) => {
    onFirst = resolve;
  });
  const done = (async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { query }, response_mode: 'streaming', user: 'drain' }),
    });
    const events: string[] = [];
    let text = '';
    let cut = false;
    try {
      for await (const chunk of response.body!) {
        text += Buffer.from(chunk).toString();
        for (let at = text.indexOf('\n\n'); at !== -1; at = text.indexOf('\n\n')) {
          const frame = text.slice(0, at);
          text = text.slice(at + 2);
          const data = frame.split('\n').find((line) => line.startsWith('data: '));
          if (!data) continue;
          const event = JSON.parse(data.slice(6)).event as string;
          events.push(event);
          if (event === 'message') onFirst();
        }
      }
    } catch {
      cut = true;
    }
    return { status: response.status, events, cut };
  })();
  return { firstMessage, done };
}

async function figures(db: Database) {
  const charges = await chargedCalls(db);
  // A call that failed after the model answered may post its model cost (the owner's) with a transaction too: count the answered ones.
  const answered = new Set((await db.query<{ id: string }>("SELECT id FROM invocations WHERE status = 'success'")).rows.map((row) => row.id));
  const { rows } = await db.query<{ credits: number; held: number }>(
    `SELECT a.balance_cents::int AS credits, a.held_cents::int AS held FROM ledger_accounts a JOIN users u ON u.id = a.user_id
     WHERE u.subject = 'drain-caller' AND a.kind = 'user_credits'`,
  );
  const sum = await db.query<{ total: number }>('SELECT coalesce(sum(amount_cents), 0)::bigint AS total FROM ledger_entries');
  const outcomes = await db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM invocations GROUP BY status ORDER BY status');
  return {
    charged: charges.ids.filter((id) => answered.has(id)).length,
    orphans: charges.orphans,
    credits: rows[0]!.credits,
    held: rows[0]!.held,
    ledgerSum: sum.rows[0]!.total,
    outcomes: Object.fromEntries(outcomes.rows.map((row) => [row.status, row.n])),
  };
}

const refused = (base: string) =>
  fetch(`${base}/livez`).then(
    () => false,
    () => true,
  );

describe('SIGTERM drains a server process', () => {
  it('answers /readyz 503 at once, takes new calls for the grace period and then no connection, finishes what is in flight, and exits 0 with each call charged once', async () => {
    upstream.setBehaviour({ delayMs: 2500, chunkDelayMs: 150, text: 'one two three four five six seven eight nine ten', hangAfterFrames: null });
    const { server, url, key, exited, openDatabase } = await startWithApp({ SHUTDOWN_GRACE_SECONDS: '3', SHUTDOWN_TIMEOUT_SECONDS: '60' });
    const blocking = blockingCall(url, key, 'in flight');
    const stream = streamingCall(url, key, 'streamed');
    while (upstream.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));

    server.child.kill('SIGTERM');
    const signalledAt = performance.now();
    let readiness: { status: number; body: { reason?: string } } | null = null;
    while (performance.now() - signalledAt < 2000) {
      const response = await fetch(`${server.base}/readyz`);
      readiness = { status: response.status, body: await response.json() };
      if (readiness.status === 503) break;
    }
    expect(readiness).toEqual({ status: 503, body: expect.objectContaining({ status: 'unavailable', reason: 'draining' }) });
    expect((await fetch(`${server.base}/livez`)).status).toBe(200);
    // A balancer that has not seen the 503 yet still gets its call answered.
    const lateButInGrace = blockingCall(url, key, 'sent during the grace period');
    while (performance.now() - signalledAt < 3500) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await refused(server.base)).toBe(true);

    const [first, streamed, late] = await Promise.all([blocking, stream.done, lateButInGrace]);
    expect(first.status).toBe(200);
    expect(late.status).toBe(200);
    expect(streamed).toMatchObject({ status: 200, cut: false });
    expect(streamed.events.at(-1)).toBe('message_end');
    expect(await exited).toBe(0);

    const opened = await openDatabase();
    try {
      expect(await figures(opened.db)).toEqual({ charged: 3, orphans: 0, credits: CREDITS - 3 * PRICE, held: 0, ledgerSum: 0, outcomes: { success: 3 } });
    } finally {
      await opened.close();
    }
  }, 240_000);

  it('cuts what is still open at SHUTDOWN_TIMEOUT_SECONDS as a cut stream: charged once part of the answer was sent, free before', async () => {
    // A stream that sends its first words then stalls, and one whose model never starts.
    upstream.setBehaviour({
      delayMs: 0,
      chunkDelayMs: 0,
      text: 'first words then nothing more',
      hangAfterFrames: (request) => (JSON.stringify(request.body).includes('never starts') ? 0 : 2),
    });
    const { server, url, key, exited, openDatabase } = await startWithApp({ SHUTDOWN_GRACE_SECONDS: '0', SHUTDOWN_TIMEOUT_SECONDS: '3' });
    const started = streamingCall(url, key, 'stalls after its first words');
    const silent = streamingCall(url, key, 'never starts');
    await started.firstMessage;
    while (upstream.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));

    const signalledAt = performance.now();
    server.child.kill('SIGTERM');
    const [cutStarted, cutSilent] = await Promise.all([started.done, silent.done]);
    expect(cutStarted.cut).toBe(true);
    expect(cutStarted.events).toContain('message');
    expect(cutStarted.events).not.toContain('message_end');
    expect(cutSilent.cut).toBe(true);
    expect(cutSilent.events.filter((event) => event === 'message')).toEqual([]);
    expect(performance.now() - signalledAt).toBeGreaterThan(2500);
    expect(await exited).toBe(0);

    const opened = await openDatabase();
    try {
      const result = await figures(opened.db);
      expect(result).toMatchObject({ charged: 1, orphans: 0, credits: CREDITS - PRICE, held: 0, ledgerSum: 0 });
      expect(result.outcomes).toEqual({ error: 1, success: 1 });
    } finally {
      await opened.close();
    }
  }, 240_000);
});
