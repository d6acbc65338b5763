// Issue 62's figure: 1,000 money events (card top-ups, as the Stripe webhook applies them, each in its
// own transaction) written while three server processes deliver them to 20 endpoints, with a random
// process killed (SIGKILL) twice and started again; one top-up in ten is rolled back on purpose.
// Every committed event is delivered at least once, none for a rolled-back change, every delivery of
// one event carries its webhook-id (and verifies with the registry's standardwebhooks), and the p99
// from commit to the first delivery attempt is at most 5 s. PostgreSQL only: several processes share
// the database (PGlite is one process's embedded database), as CI's PostgreSQL pass runs it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyTopUpPayment } from '../billing/payments/ledger.ts';
import { createTestDatabase, type TestDatabase } from '../test-support/database.ts';
import { startTestIssuer, type TestIssuer } from '../test-support/oidc-issuer.ts';
import { type ServerProcess, sendJson, startServerProcess, stopServerProcess } from '../test-support/server-process.ts';

const EVENTS = 1000;
const ROLLED_BACK_EVERY = 10;
const ENDPOINTS = 20;
const WRITERS = 8;

describe.runIf(process.env.DATABASE_URL)('webhooks under load with processes killed', () => {
  let database: TestDatabase;
  let issuer: TestIssuer;
  let receiver: Server;
  const processes: ServerProcess[] = [];
  const arrivals: { webhookId: string; intent: string; at: number; verified: boolean }[] = [];
  const secrets = new Map<string, string>();
  /** Processes started again after a kill (stopped in afterAll, even when the test failed first). */
  const restarting: Promise<void>[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    [database, issuer] = await Promise.all([createTestDatabase(), startTestIssuer()]);
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const at = Date.now();
        const body = Buffer.concat(chunks).toString('utf8');
        const user = (request.url ?? '').slice(1);
        let verified = false;
        try {
          new Webhook(secrets.get(user)!).verify(body, request.headers as Record<string, string>);
          verified = true;
        } catch {}
        const parsed = JSON.parse(body) as { data: { payment_intent_id: string } };
        arrivals.push({ webhookId: String(request.headers['webhook-id']), intent: parsed.data.payment_intent_id, at, verified });
        response.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    env = {
      DATABASE_URL: database.url!,
      SECRET_KEY: 'c'.repeat(64),
      OIDC_ISSUER: issuer.issuer,
      OIDC_CLIENT_ID: 'test-client',
      OIDC_AUDIENCE: issuer.audience,
      ALLOW_PRIVATE_WEBHOOK_URLS: 'on',
      // A kill strands the deliveries its process had claimed until their lease ends (the timeout and
      // 1 s: 3 s here), after which the others send them: the p99 below rests on that when a kill lands
      // mid-send (with 3 s of timeout, 5 s of margin, strandings read 8.2 s in a CI run).
      WEBHOOK_TIMEOUT_MS: '2000',
    };
    processes.push(...(await Promise.all([0, 1, 2].map(() => startServerProcess(env, { startSeconds: 300 })))));
  }, 600_000);

  afterAll(async () => {
    await Promise.allSettled(restarting);
    await Promise.all(processes.map(stopServerProcess));
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
    await Promise.all([database?.cleanup(), issuer?.close()]);
  });

  it('delivers every committed event at least once, none rolled back, duplicates with one webhook-id, p99 commit → first attempt ≤ 5 s', async () => {
    const port = (receiver.address() as AddressInfo).port;
    const users: string[] = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      const token = await issuer.sign({ sub: `hooks-load-${i}`, email: `load${i}@example.com` });
      const profile = await sendJson(processes[0]!.base, 'GET', '/api/auth/profile/', token);
      const userId = profile.body.user.id as string;
      const created = await sendJson(processes[0]!.base, 'POST', '/api/webhooks/endpoints/', token, {
        url: `http://127.0.0.1:${port}/${userId}`,
        events: ['topup.succeeded'],
      });
      expect(created.status).toBe(201);
      secrets.set(userId, created.body.secret);
      users.push(userId);
    }

    const committed = new Map<string, number>();
    const rolledBack = new Set<string>();
    const kills: string[] = [];
    const killAt = new Set([Math.floor(EVENTS * (0.25 + Math.random() * 0.15)), Math.floor(EVENTS * (0.6 + Math.random() * 0.15))]);
    const restarts = restarting;
    let next = 0;
    const write = async () => {
      while (next < EVENTS) {
        const n = next++;
        if (killAt.has(n)) {
          const victim = Math.floor(Math.random() * processes.length);
          const [killed] = processes.splice(victim, 1);
          killed!.child.kill('SIGKILL');
          kills.push(`process ${victim} at event ${n}`);
          restarts.push(startServerProcess(env, { startSeconds: 300 }).then((started) => void processes.push(started)));
        }
        const userId = users[n % users.length]!;
        const intent = `pi_load_${n}`;
        const rollBack = n % ROLLED_BACK_EVERY === ROLLED_BACK_EVERY - 1;
        await database.db.query("INSERT INTO credit_top_ups (user_id, stripe_payment_intent_id, amount_cents, currency) VALUES ($1, $2, 500, 'usd')", [
          userId,
          intent,
        ]);
        try {
          await database.db.transaction(async (tx) => {
            await applyTopUpPayment(tx, { id: intent, amount: 500, currency: 'usd', status: 'succeeded' });
            if (rollBack) throw new Error('rolled back');
          });
          committed.set(intent, Date.now());
        } catch {
          rolledBack.add(intent);
        }
      }
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: WRITERS }, write));
    const written = Date.now();
    await Promise.all(restarts);
    const deadline = Date.now() + 180_000;
    const delivered = () => new Set(arrivals.map((arrival) => arrival.intent));
    while (Date.now() < deadline && [...committed.keys()].some((intent) => !delivered().has(intent))) await new Promise((resolve) => setTimeout(resolve, 250));

    const missing = [...committed.keys()].filter((intent) => !delivered().has(intent));
    expect(missing).toEqual([]);
    expect(arrivals.filter((arrival) => rolledBack.has(arrival.intent))).toEqual([]);
    expect(arrivals.every((arrival) => arrival.verified)).toBe(true);
    const idsOf = new Map<string, Set<string>>();
    for (const arrival of arrivals) idsOf.set(arrival.intent, (idsOf.get(arrival.intent) ?? new Set()).add(arrival.webhookId));
    expect([...idsOf.values()].filter((ids) => ids.size !== 1)).toEqual([]);
    const firstAt = new Map<string, number>();
    for (const arrival of arrivals) if (!firstAt.has(arrival.intent) || arrival.at < firstAt.get(arrival.intent)!) firstAt.set(arrival.intent, arrival.at);
    const latencies = [...committed].map(([intent, at]) => Math.max(0, firstAt.get(intent)! - at)).sort((a, b) => a - b);
    const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)]!;
    const duplicates = arrivals.length - firstAt.size;
    console.log(
      `webhooks under load: ${committed.size} committed and ${rolledBack.size} rolled-back top-ups written in ${((written - started) / 1000).toFixed(1)} s by ${WRITERS} writers; ` +
        `3 processes, killed: ${kills.join(', ')}; ${arrivals.length} deliveries (${duplicates} duplicates, same webhook-id), missing 0, rolled back delivered 0; ` +
        `commit → first attempt p50 ${p(0.5)} ms, p99 ${p(0.99)} ms, max ${latencies.at(-1)} ms`,
    );
    expect(p(0.99)).toBeLessThanOrEqual(5000);
  }, 600_000);
});
