// Signed webhooks (issue 62): endpoints through the API, the outbox written with the change (and not
// for a rolled-back one), signed deliveries verified by the registry's `standardwebhooks`, retries,
// "send again", and the bad input the issue names, each refused or cut off with its reason while the
// other deliveries go on.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyTopUpPayment } from '../billing/payments/ledger.ts';
import type { Database } from '../db/client.ts';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import { mailSubject, mailText, startSmtpFake } from '../test-support/fakes/smtp-fake.ts';
import { type AlertSources, scanAlerts } from './alerts.ts';
import { recordWebhookEvent } from './outbox-service.ts';
import { sendSigned } from './sender.ts';
import { createCallAlerts, createWebhooksService } from './service.ts';
import { createWebhookWorker, IDLE_POLL_MS, POLL_MS, retryDelaySeconds } from './worker.ts';

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

let ctx: TestContext;
let receiver: Server;
let base = '';
const received: Received[] = [];
const failing = new Set<string>();
const hanging: import('node:http').ServerResponse[] = [];

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const api = (method: Method, url: string, token: string, payload?: object) =>
  ctx.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({ path, headers: request.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      if (path === '/hang') return void hanging.push(response);
      if (path === '/redirect') return void response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      if (path === '/big') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(1024 * 1024, 'x');
        let sent = 0;
        const more = () => {
          while (sent < 10) {
            sent++;
            if (!response.write(chunk)) return void response.once('drain', more);
          }
          response.end();
        };
        return void more();
      }
      if (failing.has(path)) return void response.writeHead(500).end('down for maintenance');
      response.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  ctx = await createTestContext({ ALLOW_PRIVATE_WEBHOOK_URLS: 'on', WEBHOOK_WORKER: 'off', WEBHOOK_TIMEOUT_MS: '5000' });
}, 120_000);
afterAll(async () => {
  for (const response of hanging) response.destroy();
  await ctx?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

let userCounter = 0;
const newUser = async () => {
  const token = await ctx.tokenFor(`hooks-${++userCounter}`);
  const id = (await api('GET', '/api/auth/profile/', token)).json().user.id as string;
  return { token, id };
};

/** A succeeded card top-up, as the Stripe webhook applies it (billing/payments/ledger.ts), in one transaction. */
async function topUp(userId: string, cents: number, intentId: string, rollBack = false) {
  await ctx.database.db.query("INSERT INTO credit_top_ups (user_id, stripe_payment_intent_id, amount_cents, currency) VALUES ($1, $2, $3, 'usd')", [
    userId,
    intentId,
    cents,
  ]);
  await ctx.database.db
    .transaction(async (tx) => {
      await applyTopUpPayment(tx, { id: intentId, amount: cents, currency: 'usd', status: 'succeeded' });
      if (rollBack) throw new Error('rolled back on purpose');
    })
    .catch((error: Error) => {
      if (!rollBack) throw error;
    });
}

const attemptsOf = async (token: string, id: string) =>
  (await api('GET', `/api/webhooks/endpoints/${id}/attempts/`, token)).json() as Record<string, unknown>[];

describe('webhook endpoints', () => {
  it('adds an endpoint with a secret shown once, lists it without, changes and deletes it', async () => {
    const user = await newUser();
    const created = await api('POST', '/api/webhooks/endpoints/', user.token, { url: `${base}/a`, events: ['topup.succeeded'], description: 'Books' });
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.json().secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const listed = await api('GET', '/api/webhooks/endpoints/', user.token);
    expect(listed.json()).toEqual([expect.objectContaining({ id: created.json().id, url: `${base}/a`, events: ['topup.succeeded'], enabled: true })]);
    expect(listed.body).not.toContain('whsec_');
    const changed = await api('PATCH', `/api/webhooks/endpoints/${created.json().id}/`, user.token, { enabled: false, events: ['payout.paid', 'credits.low'] });
    expect(changed.json()).toMatchObject({ enabled: false, events: ['payout.paid', 'credits.low'] });
    const other = await newUser();
    expect((await api('DELETE', `/api/webhooks/endpoints/${created.json().id}/`, other.token)).statusCode).toBe(404);
    expect((await api('DELETE', `/api/webhooks/endpoints/${created.json().id}/`, user.token)).statusCode).toBe(204);
    expect((await api('GET', '/api/webhooks/endpoints/', user.token)).json()).toEqual([]);
  });

  it('answers bad input with 400 naming the field', async () => {
    const user = await newUser();
    const cases: [object, string][] = [
      [{ url: 'not a url', events: ['topup.succeeded'] }, 'url'],
      [{ url: 'ftp://example.com/x', events: ['topup.succeeded'] }, 'url'],
      [{ url: 'https://user:pw@example.com/x', events: ['topup.succeeded'] }, 'url'],
      [{ url: 'https://example.com/x', events: ['nope'] }, 'events'],
      [{ url: 'https://example.com/x', events: [] }, 'events'],
      [{ events: ['topup.succeeded'] }, 'url'],
    ];
    for (const [payload, field] of cases) {
      const answer = await api('POST', '/api/webhooks/endpoints/', user.token, payload);
      expect(answer.statusCode, JSON.stringify(payload)).toBe(400);
      expect(answer.json().message).toContain(field);
    }
    expect((await api('PATCH', '/api/webhooks/settings/', user.token, { credits_low_percent: 0 })).json().message).toContain('credits_low_percent');
    expect((await api('GET', '/api/webhooks/endpoints/not-a-uuid/attempts/', user.token)).statusCode).toBe(400);
  });

  it('refuses a private or loopback URL unless the operator allows it, and http:// in production mode', async () => {
    // The operator's setting off (the default): the service as app.ts builds it with this configuration.
    const strict = createWebhooksService({ db: ctx.database.db, config: { ...ctx.config, webhooks: { ...ctx.config.webhooks, allowPrivateUrls: false } } });
    const owner = await newUser();
    for (const url of ['http://127.0.0.1:9/x', 'https://10.0.0.1/x', 'https://169.254.169.254/latest', 'https://[::1]/x', 'https://2130706433/x']) {
      await expect(strict.create(owner.id, { url, events: ['topup.succeeded'] }), url).rejects.toThrow(/^url: points to a private or loopback address/);
    }
    // Allowed by the operator (this test's server), the same URL is taken.
    expect((await api('POST', '/api/webhooks/endpoints/', owner.token, { url: 'http://127.0.0.1:9/x', events: ['topup.succeeded'] })).statusCode).toBe(201);
    // Production mode: https only (checked before any name is resolved).
    const production = createWebhooksService({
      db: ctx.database.db,
      config: { ...ctx.config, production: true, webhooks: { ...ctx.config.webhooks, allowPrivateUrls: false } },
    });
    await expect(production.create('00000000-0000-0000-0000-000000000000', { url: 'http://example.com/x', events: ['topup.succeeded'] })).rejects.toThrow(
      'url: must be https:// in production mode',
    );
    // Connect-time: even a URL saved while allowed is refused when it resolves to a private address.
    const refused = await sendSigned({ url: `${base}/ok`, headers: {}, body: '{}', timeoutMs: 1000, allowPrivate: false });
    expect(refused).toMatchObject({ ok: false, statusCode: null });
    expect(refused.error).toMatch(/^refused: the URL points to a private or loopback address/);
  });
});

describe('deliveries', () => {
  it('writes the event with the ledger change, none for a rolled-back one, and delivers it signed (standardwebhooks verifies it)', async () => {
    const user = await newUser();
    const created = (await api('POST', '/api/webhooks/endpoints/', user.token, { url: `${base}/signed`, events: ['topup.succeeded'] })).json();
    await topUp(user.id, 2500, 'pi_hooks_committed');
    await topUp(user.id, 4000, 'pi_hooks_rolled_back', true);
    const { rows } = await ctx.database.db.query<{ type: string; data: Record<string, unknown> }>('SELECT type, data FROM webhook_events WHERE user_id = $1', [
      user.id,
    ]);
    expect(rows).toEqual([
      { type: 'topup.succeeded', data: expect.objectContaining({ payment_intent_id: 'pi_hooks_committed', amount_cents: 2500, currency: 'usd' }) },
    ]);

    await ctx.app.webhookWorker.runOnce();
    const deliveries = received.filter((r) => r.path === '/signed');
    expect(deliveries).toHaveLength(1);
    const delivery = deliveries[0]!;
    const verified = new Webhook(created.secret).verify(delivery.body, delivery.headers) as { type: string; data: Record<string, unknown> };
    expect(verified.type).toBe('topup.succeeded');
    expect(verified.data).toMatchObject({ amount_cents: 2500 });
    expect(delivery.headers['webhook-signature']).toMatch(/^v1,/);
    expect(() => new Webhook(created.secret).verify(delivery.body.replace('2500', '2501'), delivery.headers)).toThrow();
    const log = await attemptsOf(user.token, created.id);
    expect(log).toEqual([
      expect.objectContaining({
        ok: true,
        status_code: 200,
        response_snippet: 'thanks',
        error: null,
        event_type: 'topup.succeeded',
        delivery_status: 'delivered',
      }),
    ]);
    // Nothing more to send: another round sends nothing again.
    await ctx.app.webhookWorker.runOnce();
    expect(received.filter((r) => r.path === '/signed')).toHaveLength(1);
  });

  it('retries a failing endpoint with backoff, keeps the webhook-id, and sends again on request', async () => {
    expect([1, 2, 3, 4].map(retryDelaySeconds)).toEqual([30, 60, 120, 240]);
    expect(retryDelaySeconds(30)).toBe(6 * 3600);
    const user = await newUser();
    failing.add('/flaky');
    const created = (await api('POST', '/api/webhooks/endpoints/', user.token, { url: `${base}/flaky`, events: ['payout.paid'] })).json();
    await ctx.database.db.transaction((tx) =>
      recordWebhookEvent(tx, { type: 'payout.paid', userId: user.id, data: { payout_id: 'p1', amount_minor: 1200, currency: 'usd' } }),
    );
    await ctx.app.webhookWorker.runOnce();
    let log = await attemptsOf(user.token, created.id);
    expect(log).toEqual([
      expect.objectContaining({
        ok: false,
        status_code: 500,
        response_snippet: 'down for maintenance',
        error: 'the endpoint answered 500',
        delivery_status: 'pending',
      }),
    ]);
    const { rows } = await ctx.database.db.query<{ wait: number }>(
      'SELECT extract(epoch FROM next_attempt_at - clock_timestamp())::float8 AS wait FROM webhook_deliveries WHERE endpoint_id = $1',
      [created.id],
    );
    expect(rows[0]!.wait).toBeGreaterThan(20);
    expect(rows[0]!.wait).toBeLessThanOrEqual(30);
    failing.delete('/flaky');
    const again = await api('POST', `/api/webhooks/endpoints/${created.id}/deliveries/${log[0]!.delivery_id}/send-again/`, user.token);
    expect(again.statusCode).toBe(202);
    await ctx.app.webhookWorker.runOnce();
    log = await attemptsOf(user.token, created.id);
    expect(log[0]).toMatchObject({ ok: true, manual: true, delivery_status: 'delivered' });
    const ids = received.filter((r) => r.path === '/flaky').map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(1);
  });

  it('gives up after 24 hours, marks the endpoint failing and mails nobody without SMTP_URL', async () => {
    const user = await newUser();
    failing.add('/dead');
    const created = (await api('POST', '/api/webhooks/endpoints/', user.token, { url: `${base}/dead`, events: ['payout.failed'] })).json();
    await ctx.database.db.transaction((tx) =>
      recordWebhookEvent(tx, { type: 'payout.failed', userId: user.id, data: { payout_id: 'p2', amount_minor: 900, currency: 'usd', reason: 'closed' } }),
    );
    await ctx.app.webhookWorker.runOnce();
    await ctx.database.db.query(
      "UPDATE webhook_deliveries SET created_at = created_at - interval '25 hours', next_attempt_at = clock_timestamp() WHERE endpoint_id = $1",
      [created.id],
    );
    await ctx.app.webhookWorker.runOnce();
    const [endpoint] = (await api('GET', '/api/webhooks/endpoints/', user.token)).json();
    expect(endpoint.failing_since).not.toBeNull();
    expect(endpoint.failing_reason).toMatch(/^gave up after 2 attempts over 24 h: the endpoint answered 500/);
    expect((await attemptsOf(user.token, created.id))[0]).toMatchObject({ delivery_status: 'failed' });
    failing.delete('/dead');
  });

  it('a hanging endpoint, a redirect to a private address and a 10 MB answer end with their reasons, and never hold the others', async () => {
    const user = await newUser();
    const urls = ['/hang', '/redirect', '/big', '/fine'];
    const endpoints = new Map<string, string>();
    for (const path of urls) {
      const created = (await api('POST', '/api/webhooks/endpoints/', user.token, { url: `${base}${path}`, events: ['refund.created'] })).json();
      endpoints.set(path, created.id);
    }
    await ctx.database.db.transaction((tx) =>
      recordWebhookEvent(tx, { type: 'refund.created', userId: user.id, data: { charge_id: 'ch_1', amount_cents: 300, currency: 'usd' } }),
    );
    const started = performance.now();
    await ctx.app.webhookWorker.runOnce();
    // One round: every delivery was attempted at once, the hanging one cut by its deadline (5 s).
    expect(performance.now() - started).toBeLessThan(25_000);
    const first = async (path: string) => (await attemptsOf(user.token, endpoints.get(path)!))[0];
    expect(await first('/fine')).toMatchObject({ ok: true, status_code: 200 });
    expect(await first('/hang')).toMatchObject({ ok: false, status_code: null, error: 'timeout: no complete answer within 5000 ms' });
    expect(await first('/redirect')).toMatchObject({
      ok: false,
      status_code: 302,
      error: 'redirect not followed (302 to http://169.254.169.254/latest/meta-data/)',
    });
    expect(await first('/big')).toMatchObject({ ok: true, status_code: 200, error: 'answer cut at 64 KiB' });
    expect(((await first('/big'))!.response_snippet as string).length).toBe(500);
  });

  it('credits.low fires once per crossing, not once per check', async () => {
    const user = await newUser();
    await api('POST', '/api/webhooks/endpoints/', user.token, { url: `${base}/low`, events: ['credits.low'] });
    expect((await api('PATCH', '/api/webhooks/settings/', user.token, { credits_low_cents: 1000 })).json()).toMatchObject({
      credits_low_cents: 1000,
      mail_available: false,
    });
    // A new account's sign-up credits (500 cents) are below 1000: one crossing, however many checks.
    await ctx.app.webhookWorker.runOnce();
    await ctx.app.webhookWorker.runOnce();
    const events = async () =>
      (
        await ctx.database.db.query<{ data: { credits_cents: number } }>(
          "SELECT data FROM webhook_events WHERE user_id = $1 AND type = 'credits.low' ORDER BY created_at",
          [user.id],
        )
      ).rows;
    expect(await events()).toHaveLength(1);
    // Back above (a top-up), then below again (a higher threshold): a second crossing, a second event.
    await topUp(user.id, 1500, `pi_low_${user.id}`);
    await ctx.app.webhookWorker.runOnce();
    expect(await events()).toHaveLength(1);
    await api('PATCH', '/api/webhooks/settings/', user.token, { credits_low_cents: 5000 });
    await ctx.app.webhookWorker.runOnce();
    await ctx.app.webhookWorker.runOnce();
    expect((await events()).map((row) => row.data.credits_cents)).toEqual([500, 2000]);
    expect(received.filter((r) => r.path === '/low')).toHaveLength(2);
  });
});

describe('scanned alerts', () => {
  // The worker's scan with its figures handed in (app.ts gives it analytics' and statements' reads):
  // what is tested here is when an event is written, once per crossing or per closed month.
  it('app.error_rate fires once per crossing of the threshold over 5 minutes (at least 5 calls); statement.ready once per closed month', async () => {
    const user = await newUser();
    await api('POST', '/api/webhooks/endpoints/', user.token, { url: `${base}/scan`, events: ['app.error_rate', 'statement.ready'] });
    await api('PATCH', '/api/webhooks/settings/', user.token, { error_rate_percent: 50 });
    const appId = randomUUID();
    let rate = { total: 10, failed: 6 };
    let active: string[] = [];
    const sources: AlertSources = {
      creditAlertInputs: async () => [],
      recentErrorRates: async (owners) => (owners.includes(user.id) ? [{ owner_id: user.id, app_id: appId, slug: 'flaky', ...rate }] : []),
      usersWithStatementActivity: async (userIds) => userIds.filter((id) => active.includes(id)),
    };
    const scan = () => scanAlerts(ctx.database.db, sources, new Date(), { mail: false });
    const events = async (type: string) =>
      (await ctx.database.db.query<{ data: Record<string, unknown> }>('SELECT data FROM webhook_events WHERE user_id = $1 AND type = $2', [user.id, type]))
        .rows;

    await scan();
    await scan();
    expect(await events('app.error_rate')).toEqual([
      { data: { app_id: appId, slug: 'flaky', calls: 10, failed: 6, threshold_percent: 50, window_seconds: 300 } },
    ]);
    rate = { total: 10, failed: 5 }; // at the threshold, not above it: back below
    await scan();
    rate = { total: 4, failed: 4 }; // too few calls to be a rate
    await scan();
    expect(await events('app.error_rate')).toHaveLength(1);
    rate = { total: 20, failed: 19 }; // a second crossing
    await scan();
    await scan();
    expect((await events('app.error_rate')).map(({ data }) => data.failed)).toEqual([6, 19]);

    // statement.ready: only for an endpoint that wanted it before the month closed, only with activity, once.
    await scan();
    expect(await events('statement.ready')).toEqual([]);
    await ctx.database.db.query("UPDATE webhook_endpoints SET created_at = date_trunc('month', now()) - interval '10 days' WHERE user_id = $1", [user.id]);
    await scan();
    expect(await events('statement.ready')).toEqual([]);
    active = [user.id];
    await scan();
    await scan();
    const now = new Date();
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
    expect(await events('statement.ready')).toEqual([{ data: expect.objectContaining({ month }) }]);
  });
});

describe('mail, with SMTP_URL', () => {
  it('mails the events an account turned on, and tells the owner once when an endpoint starts failing', async () => {
    const smtp = await startSmtpFake();
    const mailing = await createTestContext({ SMTP_URL: smtp.url, ALLOW_PRIVATE_WEBHOOK_URLS: 'on', WEBHOOK_WORKER: 'off', WEBHOOK_TIMEOUT_MS: '5000' });
    try {
      const token = await mailing.tokenFor('mail-owner', { email: 'mail-owner@example.com', email_verified: true });
      const send = (method: Method, url: string, payload?: object) =>
        mailing.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
      const userId = (await send('GET', '/api/auth/profile/')).json().user.id as string;
      expect((await send('PATCH', '/api/webhooks/settings/', { mail_events: ['payout.paid'] })).json()).toMatchObject({
        mail_events: ['payout.paid'],
        mail_available: true,
      });
      failing.add('/mail-dead');
      const endpoint = (await send('POST', '/api/webhooks/endpoints/', { url: `${base}/mail-dead`, events: ['payout.paid'] })).json();
      await mailing.database.db.transaction((tx) =>
        recordWebhookEvent(tx, { type: 'payout.paid', userId, data: { payout_id: 'po_mail', amount_minor: 4200, currency: 'usd' } }),
      );
      await mailing.app.webhookWorker.runOnce();
      expect(smtp.messages.map(mailSubject)).toEqual(['Tollbooth: payout.paid']);
      expect(mailText(smtp.messages[0]!)).toContain('amount_minor: 4200');
      expect(smtp.messages[0]!.to).toEqual(['mail-owner@example.com']);
      await mailing.database.db.query(
        "UPDATE webhook_deliveries SET created_at = created_at - interval '25 hours', next_attempt_at = clock_timestamp() WHERE endpoint_id = $1",
        [endpoint.id],
      );
      await mailing.app.webhookWorker.runOnce();
      await mailing.app.webhookWorker.runOnce();
      expect(smtp.messages.map(mailSubject)).toEqual(['Tollbooth: payout.paid', 'Tollbooth: your webhook endpoint is failing']);
      expect(mailText(smtp.messages[1]!)).toContain(`${base}/mail-dead`);
    } finally {
      failing.delete('/mail-dead');
      await mailing.close();
      await smtp.close();
    }
  }, 120_000);
});

describe('the worker at rest', () => {
  it('backs off while there is nothing to send (a read or two a round, at most every IDLE_POLL_MS), and picks up an event within that', async () => {
    const statements: string[] = [];
    const db = ctx.database.db;
    const counted: Database = {
      ...db,
      kind: db.kind,
      query: ((text: string, values?: unknown[]) => {
        statements.push(text);
        return db.query(text, values);
      }) as Database['query'],
      transaction: (fn) => {
        statements.push('BEGIN');
        return db.transaction(fn);
      },
      listen: db.listen.bind(db),
      close: async () => {},
    };
    const worker = createWebhookWorker({
      db: counted,
      config: ctx.config,
      log: { error: () => {}, warn: () => {} },
      sources: { creditAlertInputs: async () => [], recentErrorRates: async () => [], usersWithStatementActivity: async () => [] },
    });
    // Nothing pending for this worker to find: fan out what earlier tests left first.
    await worker.runOnce();
    statements.length = 0;
    const started = performance.now();
    worker.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 6000));
      const rounds = statements.filter((text) => text.includes('EXISTS (SELECT 1 FROM webhook_events')).length;
      // Polling every POLL_MS would be 24 rounds in 6 s; backing off (rounds at 0.25, 0.75, 1.75, 3.75,
      // 5.75 s, then every IDLE_POLL_MS) is 5, and one more for each IDLE_POLL_MS a busy machine kept
      // this test's timer waiting past its 6 s.
      const elapsed = performance.now() - started;
      let due = 0;
      for (let at = POLL_MS, wait = POLL_MS; at <= elapsed; wait = Math.min(wait * 2, IDLE_POLL_MS), at += wait) due++;
      expect(due).toBeGreaterThanOrEqual(5);
      expect(rounds).toBeLessThanOrEqual(due + 1);
      expect(rounds).toBeGreaterThanOrEqual(2);
      expect(statements.filter((text) => text === 'BEGIN')).toEqual([]);
      expect(statements.length).toBeLessThanOrEqual(2 * rounds);
      expect(IDLE_POLL_MS / POLL_MS).toBe(8);
    } finally {
      await worker.close();
    }
  }, 60_000);
});

describe('events outside the ledger', () => {
  it('key.rate_limited at most once an hour per key, spend_cap.reached once per cap window', async () => {
    const user = await newUser();
    const alerts = createCallAlerts(ctx.database.db, (error) => {
      throw error;
    });
    const at = new Date('2026-12-06T10:15:00Z');
    for (let i = 0; i < 5; i++) alerts.keyRateLimited(user.id, 'key-1', 600, at);
    alerts.keyRateLimited(user.id, 'key-1', 600, new Date('2026-12-06T11:01:00Z'));
    for (let i = 0; i < 3; i++) alerts.spendCapReached(user.id, 'key-1', 'month', at);
    const events = async () =>
      (await ctx.database.db.query<{ type: string }>('SELECT type FROM webhook_events WHERE user_id = $1 ORDER BY type', [user.id])).rows.map(
        (row) => row.type,
      );
    await expect.poll(events).toEqual(['key.rate_limited', 'key.rate_limited', 'spend_cap.reached']);
    // Another process (a fresh memory) does not write them again: the dedupe key does not let it.
    const other = createCallAlerts(ctx.database.db, () => {});
    other.keyRateLimited(user.id, 'key-1', 600, at);
    other.spendCapReached(user.id, 'key-1', 'month', at);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await events()).toEqual(['key.rate_limited', 'key.rate_limited', 'spend_cap.reached']);
  });

  it('a free plan tells its subscriber subscription.created, and subscription.canceled when it ends with its period', async () => {
    const owner = await newUser();
    const subscriber = await newUser();
    const app = (await api('POST', '/api/app/', owner.token, { name: 'Free Plan Hook App', type: 'prompt', visibility: 'public', price_cents: 1 })).json();
    await api('PATCH', `/api/app/${app.slug}/update_status/`, owner.token, { status: 'live' });
    const plan = (await api('POST', `/api/app/${app.slug}/packages/`, owner.token, { name: 'Free', price: 0, included_calls: 5 })).json();
    const subscribed = await api('POST', `/api/app/${app.slug}/subscriptions/`, subscriber.token, { package_id: plan.id });
    expect(subscribed.statusCode).toBe(201);
    const subscriptionId = subscribed.json().id as string;
    const events = async () =>
      (
        await ctx.database.db.query<{ type: string; data: Record<string, unknown> }>('SELECT type, data FROM webhook_events WHERE user_id = $1 ORDER BY id', [
          subscriber.id,
        ])
      ).rows;
    expect(await events()).toEqual([
      { type: 'subscription.created', data: expect.objectContaining({ subscription_id: subscriptionId, app_id: app.id, amount_minor: 0 }) },
    ]);
    // Canceled at period end, and the period is over: the next read ends it, and says so once.
    expect((await api('POST', `/api/app/${app.slug}/subscriptions/${subscriptionId}/cancel/`, subscriber.token)).statusCode).toBe(200);
    await ctx.database.db.query("UPDATE subscriptions SET current_period_end = now() - interval '1 minute' WHERE id = $1", [subscriptionId]);
    expect((await api('GET', `/api/app/${app.slug}/subscriptions/`, subscriber.token)).json()[0].status).toBe('canceled');
    await api('GET', `/api/app/${app.slug}/subscriptions/`, subscriber.token);
    expect((await events()).map(({ type }) => type).sort()).toEqual(['subscription.canceled', 'subscription.created']);
  });

  it('price.changed goes to the app’s audience with the effective date, written with the price', async () => {
    const owner = await newUser();
    const created = (await api('POST', '/api/app/', owner.token, { name: 'Priced Hook App', type: 'prompt', visibility: 'public', price_cents: 10 })).json();
    await api('PATCH', `/api/app/${created.slug}/update_status/`, owner.token, { status: 'live' });
    expect((await api('PATCH', `/api/app/${created.slug}/`, owner.token, { price_cents: 25 })).statusCode).toBe(200);
    const { rows } = await ctx.database.db.query<{ audience_app_id: string; data: Record<string, unknown> }>(
      "SELECT audience_app_id, data FROM webhook_events WHERE type = 'price.changed' AND audience_app_id = $1",
      [created.id],
    );
    expect(rows).toEqual([{ audience_app_id: created.id, data: expect.objectContaining({ old_price_cents: 10, new_price_cents: 25, slug: created.slug }) }]);
    // Nobody but the owner called it, so the new price applies at once (issue 61, decision 0110); the event
    // says so. A price that waits for its notice period carries that date (gateway/abuse.test.ts has one).
    expect(Math.abs(Date.parse(rows[0]!.data.effective_at as string) - Date.now())).toBeLessThan(5 * 60_000);
    await ctx.app.webhookWorker.runOnce();
    const fanned = await ctx.database.db.query<{ fanned_out_at: Date | null }>(
      "SELECT fanned_out_at FROM webhook_events WHERE type = 'price.changed' AND audience_app_id = $1",
      [created.id],
    );
    expect(fanned.rows[0]!.fanned_out_at).not.toBeNull();
  });
});
