// Issue 62's bench: paid calls' latency with and without 10 webhook endpoints subscribed to every
// event, in the same run, while money events (card top-ups applied as the Stripe webhook applies them)
// are written at a steady rate, so with the endpoints the delivery worker is busy sending each of them
// ten times. One Tollbooth process (WEBHOOK_WORKER on) on PostgreSQL, the OpenAI-compatible fake as the
// model, a loopback receiver for the deliveries. The two phases take turns in rounds (A B A B …), so
// both see the same machine; "noise" is the spread of the same phase's p99 between rounds.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx bench/webhooks/run.ts [--rounds N] [--calls N]
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyTopUpPayment } from '../../server/src/billing/payments/ledger.ts';
import { createTestDatabase } from '../../server/src/test-support/database.ts';
import { startOpenAIFake } from '../../server/src/test-support/fakes/openai-fake.ts';
import { startTestIssuer } from '../../server/src/test-support/oidc-issuer.ts';
import { sendJson, startServerProcess, stopServerProcess } from '../../server/src/test-support/server-process.ts';

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const ROUNDS = arg('--rounds', 4);
const CALLS = arg('--calls', 200);
const EVENTS_PER_SECOND = 20;
process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';

const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), n: sorted.length };
};

const database = await createTestDatabase();
const issuer = await startTestIssuer();
const model = await startOpenAIFake({ apiKey: 'sk-bench' });
let deliveries = 0;
const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    deliveries++;
    response.writeHead(200).end('ok');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const server = await startServerProcess({
  DATABASE_URL: database.url!,
  SECRET_KEY: 'd'.repeat(64),
  OIDC_ISSUER: issuer.issuer,
  OIDC_CLIENT_ID: 'test-client',
  OIDC_AUDIENCE: issuer.audience,
  OPENAI_BASE_URL: model.baseUrl,
  OPENAI_API_KEY: 'sk-bench',
  ALLOW_PRIVATE_WEBHOOK_URLS: 'on',
  SIGNUP_CREDITS_CENTS: '100000000',
  RATE_LIMIT_PER_MINUTE: '1000000',
});
try {
  const owner = await issuer.sign({ sub: 'bench-owner', email: 'owner@example.com' });
  const caller = await issuer.sign({ sub: 'bench-caller', email: 'caller@example.com' });
  const app = await sendJson(server.base, 'POST', '/api/app/', owner, { name: 'Bench Hooks', type: 'prompt', visibility: 'public', price_cents: 1 });
  await sendJson(server.base, 'PATCH', `/api/app/${app.body.slug}/update_status/`, owner, { status: 'live' });
  const key = (await sendJson(server.base, 'POST', '/api/keys/', caller, { name: 'bench' })).body.key as string;
  const callerId = (await sendJson(server.base, 'GET', '/api/auth/profile/', caller)).body.user.id as string;
  const port = (receiver.address() as AddressInfo).port;
  const endpointIds: string[] = [];
  for (let i = 0; i < 10; i++) {
    const created = await sendJson(server.base, 'POST', '/api/webhooks/endpoints/', caller, {
      url: `http://127.0.0.1:${port}/hook-${i}`,
      events: ['topup.succeeded', 'credits.low', 'spend_cap.reached', 'key.rate_limited', 'refund.created', 'statement.ready'],
      enabled: false,
    });
    endpointIds.push(created.body.id);
  }
  await sendJson(server.base, 'PATCH', '/api/webhooks/settings/', caller, { credits_low_cents: 1 });
  const setEndpoints = (enabled: boolean) =>
    Promise.all(endpointIds.map((id) => sendJson(server.base, 'PATCH', `/api/webhooks/endpoints/${id}/`, caller, { enabled })));

  // Money events at a steady rate, all run long.
  let topUps = 0;
  let writing = true;
  const writer = (async () => {
    while (writing) {
      const intent = `pi_bench_${topUps++}`;
      await database.db.query("INSERT INTO credit_top_ups (user_id, stripe_payment_intent_id, amount_cents, currency) VALUES ($1, $2, 500, 'usd')", [
        callerId,
        intent,
      ]);
      await database.db.transaction((tx) => applyTopUpPayment(tx, { id: intent, amount: 500, currency: 'usd', status: 'succeeded' }));
      await new Promise((resolve) => setTimeout(resolve, 1000 / EVENTS_PER_SECOND));
    }
  })();

  const call = async () => {
    const started = performance.now();
    const answer = await fetch(`${server.base}/api/app/${app.body.slug}/completion-messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { query: 'hello' }, response_mode: 'blocking' }),
    });
    await answer.arrayBuffer();
    if (answer.status !== 200) throw new Error(`paid call answered ${answer.status}`);
    return performance.now() - started;
  };
  for (let i = 0; i < 50; i++) await call();

  const phases = { without: [] as number[][], with: [] as number[][] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const phase of ['without', 'with'] as const) {
      await setEndpoints(phase === 'with');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const samples: number[] = [];
      for (let i = 0; i < CALLS; i++) samples.push(await call());
      phases[phase].push(samples);
      const s = summary(samples);
      console.log(
        `round ${round + 1} ${phase.padEnd(7)} 10 endpoints: p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms (${s.n} calls); deliveries so far ${deliveries}`,
      );
    }
  }
  writing = false;
  await writer;
  const all = (phase: 'without' | 'with') => summary(phases[phase].flat());
  const spread = (phase: 'without' | 'with') => {
    const p99s = phases[phase].map((samples) => summary(samples).p99);
    return Math.max(...p99s) - Math.min(...p99s);
  };
  const without = all('without');
  const withHooks = all('with');
  console.log(
    `\nwebhooks bench: ${ROUNDS} rounds × ${CALLS} paid calls per phase, one at a time; ${topUps} top-ups written at ${EVENTS_PER_SECOND}/s, ${deliveries} deliveries\n` +
      `  without endpoints:         p50 ${without.p50.toFixed(2)} ms, p99 ${without.p99.toFixed(2)} ms (round-to-round p99 spread ${spread('without').toFixed(2)} ms)\n` +
      `  with 10 endpoints (every event): p50 ${withHooks.p50.toFixed(2)} ms, p99 ${withHooks.p99.toFixed(2)} ms (round-to-round p99 spread ${spread('with').toFixed(2)} ms)\n` +
      `  p99 difference ${(withHooks.p99 - without.p99).toFixed(2)} ms; load average at the end ${(await import('node:os'))
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}\n` +
      '  re-run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx bench/webhooks/run.ts',
  );
} finally {
  await stopServerProcess(server);
  receiver.closeAllConnections();
  receiver.close();
  await Promise.all([database.cleanup(), issuer.close(), model.close()]);
}
