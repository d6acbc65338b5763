// /metrics (issue 58), scraped by a real Prometheus from Debian's packages (/usr/bin/prometheus):
// paid calls through every door (Dify's, OpenAI's Chat Completions, the Responses API, the embed
// widget's), then PromQL checks that the counters equal what the ledger and the invocations say
// (calls, tokens, model cost, payments, fees) and that uncharged answers and the ledger's imbalance
// read 0. Also: the token is required on the main port, nothing secret is ever shown, the series do
// not grow with apps or keys unless METRICS_PER_APP is on, and METRICS_PORT serves it on loopback.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPaidTestContext, type PaidTestContext } from '../test-support/app.ts';

vi.setConfig({ testTimeout: 180_000 });

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const SITE = 'https://shop.example';
const PROMPT_TEXT = 'SECRET-PROMPT-TEXT-tell-nobody';
let ctx: PaidTestContext;
let ownerToken: string;
let callerKey: string;
let limitedKey: string;
let base: string;

const api = (method: 'GET' | 'POST' | 'PATCH', url: string, token: string, payload?: object) =>
  ctx.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

const scrape = async (token: string | null = METRICS_TOKEN) =>
  ctx.app.inject({ method: 'GET', url: '/metrics', headers: token === null ? {} : { authorization: `Bearer ${token}` } });

let counter = 0;
async function liveApp(mode: 'completion' | 'chat', token = ownerToken) {
  const created = await api('POST', '/api/app/', token, {
    name: `Metered ${++counter}`,
    type: 'prompt',
    visibility: 'public',
    price_cents: 20,
    interaction_mode: mode,
  });
  expect(created.statusCode, created.body).toBe(201);
  const slug = created.json().slug as string;
  expect((await api('PATCH', `/api/app/${slug}/update_status/`, token, { status: 'live' })).statusCode).toBe(200);
  return slug;
}

async function newKey(token: string, name = 'metrics') {
  const created = await api('POST', '/api/keys/', token, { name });
  expect(created.statusCode, created.body).toBe(201);
  return created.json().key as string;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** One call through each door, each answered 200. */
async function callEveryDoor(key: string, completionSlug: string, chatSlug: string) {
  const dify = await ctx.api('POST', `/api/app/${completionSlug}/completion-messages`, key, {
    inputs: { query: PROMPT_TEXT },
    response_mode: 'blocking',
    user: 'u',
  });
  expect(dify.statusCode, dify.body).toBe(200);
  const difyStream = await ctx.api('POST', `/api/app/${completionSlug}/completion-messages`, key, {
    inputs: { query: PROMPT_TEXT },
    response_mode: 'streaming',
    user: 'u',
  });
  expect(difyStream.statusCode).toBe(200);
  expect(difyStream.body).toContain('message_end');
  const openai = await ctx.api('POST', '/v1/chat/completions', key, { model: chatSlug, messages: [{ role: 'user', content: PROMPT_TEXT }] });
  expect(openai.statusCode, openai.body).toBe(200);
  const responses = await ctx.api('POST', '/v1/responses', key, { model: chatSlug, input: PROMPT_TEXT });
  expect(responses.statusCode, responses.body).toBe(200);
}

/** The embed widget's call: a publishable key of the site owner's, the frame token from the widget page. */
async function embedCall(slug: string, siteOwnerToken: string) {
  const created = await api('POST', '/api/keys/', siteOwnerToken, {
    name: 'Shop widget',
    kind: 'publishable',
    allowed_origins: [SITE],
    app_slugs: [slug],
    daily_spend_limit_cents: 1000,
    monthly_spend_limit_cents: 5000,
    visitor_rate_limit_per_minute: 20,
  });
  expect(created.statusCode, created.body).toBe(201);
  const key = created.json().key as string;
  const page = await ctx.app.inject({
    method: 'GET',
    url: `/embed/${slug}?key=${encodeURIComponent(key)}`,
    headers: { 'sec-fetch-dest': 'iframe', referer: `${SITE}/products/1` },
  });
  expect(page.statusCode, page.body).toBe(200);
  const settings = JSON.parse(/<script type="application\/json" id="tollbooth-embed">(.*?)<\/script>/.exec(page.body)![1]!) as { token: string };
  const answer = await ctx.app.inject({
    method: 'POST',
    url: `/api/embed/${slug}/chat-messages`,
    headers: { authorization: `Bearer ${key}`, 'x-embed-token': settings.token, origin: 'http://tollbooth.test' },
    payload: { inputs: {}, query: PROMPT_TEXT, user: 'visitor-abcdefgh', response_mode: 'blocking' },
  });
  expect(answer.statusCode, answer.body).toBe(200);
}

/** The value of one sample in the text format (labels as written, sorted by name), or null. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const match = /^([^{ ]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value) && Object.keys(found).length === Object.keys(labels).length)
      return Number(match[3]);
  }
  return null;
}

const seriesOf = (text: string) => text.split('\n').filter((line) => line.startsWith('tollbooth_'));

beforeAll(async () => {
  ctx = await createPaidTestContext(
    { METRICS_TOKEN, PLATFORM_FEE_BPS: '1000', RATE_LIMIT_PER_MINUTE: '8' },
    { observability: { healthEveryMs: 0, processMetrics: true } },
  );
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  base = `127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  ownerToken = await ctx.tokenFor('metrics-owner');
  callerKey = await newKey(await ctx.tokenFor('metrics-caller', { email: 'caller-secret@example.com' }));
  limitedKey = await newKey(await ctx.tokenFor('metrics-limited'));
}, 180_000);
afterAll(async () => {
  await ctx?.close();
});

describe('/metrics on the main port', () => {
  it('answers 401 and no figures without the token or with a wrong one, and the figures with it', async () => {
    for (const token of [null, 'wrong-token-0123456789abcdef', `${METRICS_TOKEN}x`, '']) {
      const refused = await scrape(token);
      expect(refused.statusCode, String(token)).toBe(401);
      expect(refused.body).not.toContain('tollbooth_');
      expect(refused.headers['www-authenticate']).toMatch(/^Bearer/);
    }
    const scraped = await scrape();
    expect(scraped.statusCode).toBe(200);
    expect(scraped.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const family of [
      'tollbooth_http_request_duration_seconds',
      'tollbooth_paid_calls_total',
      'tollbooth_gateway_added_seconds',
      'tollbooth_upstream_seconds',
      'tollbooth_upstream_first_token_seconds',
      'tollbooth_tokens_total',
      'tollbooth_model_cost_micros_total',
      'tollbooth_caller_payments_micros_total',
      'tollbooth_platform_fees_micros_total',
      'tollbooth_creator_net_micros_total',
      'tollbooth_answer_journal_calls',
      'tollbooth_answer_journal_oldest_seconds',
      'tollbooth_settlement_batch_calls',
      'tollbooth_settlement_batch_seconds',
      'tollbooth_uncharged_answers_total',
      'tollbooth_ledger_imbalance_cents',
      'tollbooth_held_credits_cents',
      'tollbooth_stalled_holds',
      'tollbooth_rate_limit_refusals_total',
      'tollbooth_spend_refusals_total',
      'tollbooth_upstream_errors_total',
      'tollbooth_trace_spans_dropped_total',
      'nodejs_eventloop_lag_p99_seconds',
      'process_resident_memory_bytes',
    ]) {
      expect(scraped.body, family).toContain(`# TYPE ${family} `);
    }
  });

  it('is not served on the main port without METRICS_TOKEN, and METRICS_PORT serves it on loopback (its token too when set)', async () => {
    const port = await freePort();
    const other = await createPaidTestContext({ METRICS_PORT: String(port) });
    try {
      expect((await other.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
      const scraped = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('# TYPE tollbooth_paid_calls_total counter');
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    } finally {
      await other.close();
    }
    const both = await createPaidTestContext({ METRICS_PORT: String(port), METRICS_TOKEN });
    try {
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(401);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(200);
    } finally {
      await both.close();
    }
  });

  it('moves with paid calls of every door, by bounded labels, and never shows a key, email, prompt or answer', async () => {
    const completionSlug = await liveApp('completion');
    const chatSlug = await liveApp('chat');
    const before = await scrape();
    const calls = (text: string, path: string, outcome = 'success') => sample(text, 'tollbooth_paid_calls_total', { app_kind: 'prompt', path, outcome }) ?? 0;
    await callEveryDoor(callerKey, completionSlug, chatSlug);
    await embedCall(chatSlug, await ctx.tokenFor('metrics-site-owner'));
    // Refusals: the rate limit (8 a minute) of a key of its own, and a price cap.
    for (let i = 0; i < 9; i++) {
      await ctx.api('POST', `/api/app/${completionSlug}/completion-messages`, limitedKey, { inputs: { query: 'Hi' }, response_mode: 'blocking', user: 'u' });
    }
    const capped = await ctx.app.inject({
      method: 'POST',
      url: `/api/app/${completionSlug}/completion-messages`,
      headers: { authorization: `Bearer ${callerKey}`, 'x-max-price-cents': '1' },
      payload: { inputs: { query: 'Hi' }, response_mode: 'blocking', user: 'u' },
    });
    expect(capped.statusCode).toBe(402);
    await ctx.app.settledReads();

    const after = await scrape();
    expect(calls(after.body, 'dify') - calls(before.body, 'dify')).toBe(2 + 8);
    expect(calls(after.body, 'openai') - calls(before.body, 'openai')).toBe(1);
    expect(calls(after.body, 'responses') - calls(before.body, 'responses')).toBe(1);
    expect(calls(after.body, 'embed') - calls(before.body, 'embed')).toBe(1);
    expect(calls(after.body, 'dify', 'rejected') - calls(before.body, 'dify', 'rejected')).toBe(2);
    expect(sample(after.body, 'tollbooth_rate_limit_refusals_total', { path: 'dify' })).toBe(1);
    expect(sample(after.body, 'tollbooth_spend_refusals_total', { reason: 'price_above_limit' })).toBe(1);
    expect(sample(after.body, 'tollbooth_gateway_added_seconds_count', { app_kind: 'prompt', path: 'openai' })).toBeGreaterThanOrEqual(1);
    expect(sample(after.body, 'tollbooth_upstream_first_token_seconds_count', { provider: 'openai' })).toBeGreaterThanOrEqual(1);
    expect(sample(after.body, 'tollbooth_settlement_batch_calls_count')).toBeGreaterThanOrEqual(1);

    // Nothing secret: the keys, the caller's email, the prompt, the model's answers, the apps' slugs.
    for (const secret of [callerKey, limitedKey, 'caller-secret@example.com', PROMPT_TEXT, 'fake model', completionSlug, chatSlug]) {
      expect(after.body.toLowerCase(), secret).not.toContain(secret.toLowerCase());
    }

    // Bounded: calls to more apps with more keys add no series.
    const series = seriesOf(after.body).map((line) => line.replace(/ \S+$/, ''));
    for (let i = 0; i < 4; i++) {
      const owner = await ctx.tokenFor(`metrics-owner-${i}`);
      const key = await newKey(await ctx.tokenFor(`metrics-caller-${i}`));
      await callEveryDoor(key, await liveApp('completion', owner), await liveApp('chat', owner));
    }
    await ctx.app.settledReads();
    const later = seriesOf((await scrape()).body).map((line) => line.replace(/ \S+$/, ''));
    expect(later.filter((line) => !series.includes(line))).toEqual([]);
    expect(later.length).toBeLessThan(2000);
  });

  it('with METRICS_PER_APP=true adds the app slug to the paid calls, tokens and model cost', async () => {
    const perApp = await createPaidTestContext({ METRICS_TOKEN, METRICS_PER_APP: 'true' });
    try {
      const owner = await perApp.tokenFor('per-app-owner');
      const { slug } = await perApp.liveApp(owner, { name: 'Per App', type: 'prompt', visibility: 'public', price_cents: 3, interaction_mode: 'completion' });
      const answer = await perApp.api('POST', `/api/app/${slug}/completion-messages`, owner, { inputs: { query: 'Hi' }, response_mode: 'blocking', user: 'u' });
      expect(answer.statusCode, answer.body).toBe(200);
      const text = (await perApp.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).body;
      expect(sample(text, 'tollbooth_paid_calls_total', { app_kind: 'prompt', path: 'dify', outcome: 'success', app: slug })).toBe(1);
      expect(text).toMatch(new RegExp(`tollbooth_tokens_total\\{[^}]*app="${slug}"`));
    } finally {
      await perApp.close();
    }
  });
});

describe('a real Prometheus scraping the server', () => {
  it('reads counters equal to the ledger, and 0 uncharged answers and 0 imbalance, by PromQL', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tollbooth-prometheus-'));
    const promPort = await freePort();
    writeFileSync(
      path.join(dir, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        'scrape_configs:',
        '  - job_name: tollbooth',
        '    metrics_path: /metrics',
        `    authorization: { type: Bearer, credentials: "${METRICS_TOKEN}" }`,
        `    static_configs: [{ targets: ["${base}"] }]`,
        '',
      ].join('\n'),
    );
    const prometheus = spawn(
      '/usr/bin/prometheus',
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    prometheus.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // A missing binary fails the test at once (npm test installs it: scripts/test-prerequisites.mjs).
    let startFailure: Error | null = null;
    prometheus.once('error', (error) => (startFailure = error));
    try {
      const query = async (promql: string): Promise<number | null> => {
        const response = await fetch(`http://127.0.0.1:${promPort}/api/v1/query?query=${encodeURIComponent(promql)}`).catch(() => null);
        if (!response?.ok) return null;
        const body = (await response.json()) as { data: { result: { value: [number, string] }[] } };
        const first = body.data.result[0];
        return first ? Number(first.value[1]) : null;
      };
      // Calls through every door, then the ledger's figures.
      const completionSlug = await liveApp('completion');
      const chatSlug = await liveApp('chat');
      await callEveryDoor(await newKey(await ctx.tokenFor('prometheus-caller')), completionSlug, chatSlug);
      await embedCall(chatSlug, await ctx.tokenFor('prometheus-site-owner'));
      await ctx.app.settledReads();
      const { rows } = await ctx.database.db.query<{ calls: number; input: number; output: number; cost: number; price: number }>(
        `SELECT count(*)::int AS calls, coalesce(sum(input_tokens), 0)::bigint AS input, coalesce(sum(output_tokens), 0)::bigint AS output,
                coalesce(sum(model_cost_micros), 0)::bigint AS cost, coalesce(sum(price_cents), 0)::bigint AS price
           FROM invocations WHERE status = 'success'`,
      );
      const ledger = rows[0]!;
      const fees = (
        await ctx.database.db.query<{ fees: number }>(
          "SELECT coalesce(sum(balance_cents), 0)::bigint AS fees FROM ledger_accounts WHERE kind = 'platform_fees'",
        )
      ).rows[0]!.fees;
      expect(ledger.price).toBeGreaterThan(0);
      expect(fees).toBeGreaterThan(0);
      const expected: [string, number][] = [
        ['sum(tollbooth_paid_calls_total{outcome="success"})', ledger.calls],
        ['sum(tollbooth_tokens_total{direction="input"})', ledger.input],
        ['sum(tollbooth_tokens_total{direction="output"})', ledger.output],
        ['sum(tollbooth_model_cost_micros_total)', ledger.cost],
        ['sum(tollbooth_caller_payments_micros_total)', ledger.price * 10_000],
        ['sum(tollbooth_platform_fees_micros_total)', fees * 10_000],
        ['sum(tollbooth_uncharged_answers_total)', 0],
        ['sum(tollbooth_ledger_imbalance_cents)', 0],
        ['tollbooth_stalled_holds', 0],
        ['up{job="tollbooth"}', 1],
      ];
      const deadline = Date.now() + 120_000;
      let seen: (number | null)[] = [];
      while (Date.now() < deadline) {
        if (startFailure) throw new Error(`/usr/bin/prometheus did not start: ${(startFailure as Error).message}`);
        seen = await Promise.all(expected.map(([promql]) => query(promql)));
        if (seen.every((value, index) => value === expected[index]![1])) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(Object.fromEntries(expected.map(([promql], index) => [promql, seen[index]])), stderr).toEqual(Object.fromEntries(expected));
      // The dashboard's added-latency panel: a p50 from the histogram.
      const p50 = await query('histogram_quantile(0.5, sum by (le) (tollbooth_gateway_added_seconds_bucket))');
      expect(p50).toBeGreaterThan(0);

      // Every query of the Grafana dashboard is valid PromQL here, and every series it reads is served.
      const dashboard = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../../deploy/grafana/tollbooth-dashboard.json'), 'utf8')) as {
        panels: { title: string; targets?: { expr: string }[] }[];
      };
      const served = (await scrape()).body;
      const expressions = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ title: panel.title, expr: target.expr })));
      expect(expressions.length).toBeGreaterThan(20);
      for (const { title, expr } of expressions) {
        const promql = expr.replaceAll('$__rate_interval', '1m');
        const response = await fetch(`http://127.0.0.1:${promPort}/api/v1/query?query=${encodeURIComponent(promql)}`);
        expect(response.status, `${title}: ${promql}: ${await response.clone().text()}`).toBe(200);
        for (const name of promql.match(/\b(?:tollbooth|nodejs|process)_[a-z0-9_]+/g) ?? []) {
          const family = name.replace(/_(bucket|count|sum)$/, '');
          expect(served, `${title} reads ${name}`).toMatch(new RegExp(`^# TYPE ${family} `, 'm'));
        }
      }
      if (process.env.TOLLBOOTH_SCREENSHOTS)
        await screenshots(process.env.TOLLBOOTH_SCREENSHOTS, promPort, () => callEveryDoor(screenshotKey(), completionSlug, chatSlug));
    } finally {
      if (prometheus.pid !== undefined && prometheus.exitCode === null && prometheus.signalCode === null) {
        const exited = new Promise((resolve) => prometheus.once('exit', resolve));
        prometheus.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);
});

/** Keys for the screenshots' load: each serves 2 rounds of 4 calls in turn (the rate limit here is 8 a minute). */
let screenshotKeys: string[] = [];
let screenshotCalls = 0;
function screenshotKey(): string {
  return screenshotKeys[Math.floor(screenshotCalls++ / 2) % screenshotKeys.length]!;
}

/**
 * Not part of the suite: with TOLLBOOTH_SCREENSHOTS=<dir>, paid calls run for a few minutes while
 * Prometheus scrapes, then headless Chromium photographs Prometheus' graph of the added latency and
 * the dashboard's main queries (docs/screenshots/, README "Metrics and traces").
 */
async function screenshots(dir: string, promPort: number, call: () => Promise<void>) {
  screenshotKeys = await Promise.all(Array.from({ length: 40 }, async (_, i) => newKey(await ctx.tokenFor(`screenshot-caller-${i}`))));
  const until = Date.now() + 150_000;
  while (Date.now() < until) await call();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const graph = (panels: string[]) =>
      `http://127.0.0.1:${promPort}/graph?${panels.map((expr, i) => `g${i}.expr=${encodeURIComponent(expr)}&g${i}.tab=0&g${i}.range_input=5m`).join('&')}`;
    await page.goto(
      graph([
        'histogram_quantile(0.5, sum by (le) (rate(tollbooth_gateway_added_seconds_bucket[1m])))',
        'histogram_quantile(0.99, sum by (le) (rate(tollbooth_gateway_added_seconds_bucket[1m])))',
      ]),
    );
    await page.waitForTimeout(4000);
    await page.screenshot({ path: path.join(dir, 'prometheus-added-latency.png'), fullPage: true });
    await page.setViewportSize({ width: 1400, height: 1000 });
    await page.goto(
      graph([
        'sum by (path, outcome) (rate(tollbooth_paid_calls_total[1m]))',
        'sum by (model, direction) (rate(tollbooth_tokens_total[1m]))',
        'sum(rate(tollbooth_caller_payments_micros_total[1m])) * 3600 / 1e6',
        'sum(tollbooth_uncharged_answers_total) + sum(abs(tollbooth_ledger_imbalance_cents))',
        'sum(tollbooth_answer_journal_calls)',
      ]),
    );
    await page.waitForTimeout(5000);
    await page.screenshot({ path: path.join(dir, 'prometheus-dashboard-queries.png'), fullPage: true });
  } finally {
    await browser.close();
  }
}
