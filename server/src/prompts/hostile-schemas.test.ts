// A user's input schema must not be able to stall a server process: patterns run on a
// linear-time engine, schemas have size and depth limits, inputs have a size cap. The event loop
// stays responsive (health answers in < 50 ms) while hostile inputs are validated.
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linearRegExp } from '../platform/safe-regex.ts';
import { createTestContext, type TestContext } from '../test-support/app.ts';

let ctx: TestContext;
let owner: string;

beforeAll(async () => {
  ctx = await createTestContext({ RATE_LIMIT_PER_MINUTE: '100000' });
  owner = await ctx.tokenFor('schema-owner');
});
afterAll(async () => {
  await ctx?.close();
});

const api = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
  ctx.app.inject({ method, url, headers: { authorization: `Bearer ${owner}` }, ...(payload === undefined ? {} : { payload: payload as object }) });

let counter = 0;
async function appWithSchema(inputSchema: unknown) {
  const slug = (await api('POST', '/api/app/', { name: `Hostile ${++counter}`, type: 'prompt', visibility: 'public' })).json().slug as string;
  return { slug, saved: await api('PATCH', `/api/app/${slug}/prompt/`, { input_schema: inputSchema }) };
}
const schemaWith = (query: object) => ({ type: 'object', properties: { query: { type: 'string', ...query } }, required: ['query'] });

describe('saving schemas', () => {
  it('accepts a catastrophic-backtracking pattern (it runs in linear time) and refuses what RE2 cannot run', async () => {
    expect((await appWithSchema(schemaWith({ pattern: '^(a+)+$' }))).saved.statusCode).toBe(200);
    const lookahead = (await appWithSchema(schemaWith({ pattern: '^(?=a)a+$' }))).saved;
    expect(lookahead.statusCode).toBe(400);
    expect(lookahead.json().params).toBe('input_schema.properties.query.pattern');
    const backreference = (await appWithSchema(schemaWith({ pattern: '^(a)\\1$' }))).saved;
    expect(backreference.statusCode).toBe(400);
    const patternProperties = (await appWithSchema({ ...schemaWith({}), patternProperties: { '(?<=x)y': { type: 'string' } } })).saved;
    expect(patternProperties.statusCode).toBe(400);
    expect((await appWithSchema(schemaWith({ format: 'regex' }))).saved.statusCode).toBe(400);
  });

  it('refuses deep or large schemas with 400, never a 500 (deep JSON in default used to throw RangeError)', async () => {
    // Built as text: JSON.stringify itself cannot go 20,000 levels deep.
    const { slug } = await appWithSchema(schemaWith({}));
    const deepDefault = `${'{"a":'.repeat(20_000)}"x"${'}'.repeat(20_000)}`;
    const veryDeep = await ctx.app.inject({
      method: 'PATCH',
      url: `/api/app/${slug}/prompt/`,
      headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json', 'idempotency-key': 'deep' },
      payload: `{"input_schema":{"type":"object","properties":{"query":{"type":"string","default":${deepDefault}}}}}`,
    });
    expect(veryDeep.statusCode).toBe(400);
    let moderate: unknown = 'x';
    for (let i = 0; i < 30; i++) moderate = { a: moderate };
    const tooDeep = (await appWithSchema(schemaWith({ default: moderate }))).saved;
    expect(tooDeep.statusCode).toBe(400);
    expect(tooDeep.json().message).toContain('levels deep');
    const huge = (await appWithSchema(schemaWith({ enum: Array.from({ length: 200 }, (_, i) => `${i}`.padEnd(400, 'x')) }))).saved;
    expect(huge.statusCode).toBe(400);
    expect(huge.json().message).toContain('KB');
  });
});

describe('validating hostile inputs', () => {
  it('takes linear time for any input the gateway accepts: well under 250 ms where backtracking takes seconds', () => {
    const ajv = new Ajv({ strict: false, code: { regExp: linearRegExp } });
    const validate = ajv.compile(schemaWith({ pattern: '^(a+)+$' }));
    validate({ query: 'warm up' });
    let worst = 0;
    for (const length of [27, 1000, 64 * 1024, 100_000]) {
      const input = { query: `${'a'.repeat(length)}!` };
      // The best of five: a shared CI machine's scheduler noise is not the engine's time. A backtracking
      // engine needs seconds at 27 characters (2^27 steps) and never ends at 100,000; a linear one a few
      // milliseconds at most, 18 ms once on a busy CI machine, hence a bound that tells the two apart
      // rather than one that times the engine.
      const times = [0, 1, 2, 3, 4].map(() => {
        const started = performance.now();
        validate(input);
        return performance.now() - started;
      });
      worst = Math.max(worst, Math.min(...times));
    }
    console.log(`worst validation of a hostile input against ^(a+)+$: ${worst.toFixed(2)} ms`);
    expect(worst).toBeLessThan(250);
  });

  it('keeps the event loop responsive during 40 hostile calls: health answers in < 50 ms', async () => {
    const { slug } = await appWithSchema(schemaWith({ pattern: '^(a+)+$' }));
    await api('PATCH', `/api/app/${slug}/update_status/`, { status: 'live' });
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    const healthTimes: number[] = [];
    let done = false;
    const probe = (async () => {
      while (!done) {
        const started = performance.now();
        await (await fetch(`${base}/api/health`)).text();
        healthTimes.push(performance.now() - started);
      }
    })();
    // Warm up once (schema compilation, key set, connections), as a running server would be.
    await fetch(`${base}/api/app/${slug}/completion-messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { query: 'aaa!' } }),
    });
    // 40 characters: a backtracking engine would need hours per call, so any finished round shows
    // linear time. A round is measured again (at most three) only when the machine's scheduler,
    // not the server, caused the stall: a real exponential pattern fails every round.
    const round = async (hostile: boolean) => {
      healthTimes.length = 0;
      const loopDelay = monitorEventLoopDelay({ resolution: 5 });
      loopDelay.enable();
      const answers: unknown[] = [];
      // Two callers at a time, each sending hostile inputs back to back.
      await Promise.all(
        [0, 1].map(async (caller) => {
          for (let i = 0; i < 20; i++) {
            const response = await fetch(`${base}/api/app/${slug}/completion-messages`, {
              method: 'POST',
              headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
              body: JSON.stringify({ inputs: { query: `${(hostile ? 'a' : 'b').repeat((i + caller) % 2 ? 40 : 60_000)}!` } }),
            });
            answers.push(await response.json());
          }
        }),
      );
      loopDelay.disable();
      expect(answers).toHaveLength(40);
      for (const answer of answers) expect(answer).toMatchObject({ code: 'invalid_param', params: 'inputs.query' });
      const sorted = [...healthTimes].sort((a, b) => a - b);
      return {
        stallMs: loopDelay.max / 1e6,
        p90StallMs: loopDelay.percentile(90) / 1e6,
        medianHealth: sorted[Math.floor(sorted.length / 2)] ?? 0,
        worstHealth: sorted.at(-1) ?? 0,
        probes: sorted.length,
      };
    };
    // The same calls with inputs that fail at once (no backtracking possible) measure what this
    // machine's load alone costs; a busy CI machine must not fail the test, a freezing pattern must.
    const baseline = await round(false);
    const limitMs = Math.max(50, 3 * Math.max(baseline.p90StallMs, baseline.medianHealth) + 20);
    let result = await round(true);
    for (let attempt = 1; attempt < 5 && (result.p90StallMs >= limitMs || result.medianHealth >= limitMs); attempt++) result = await round(true);
    done = true;
    await probe;
    console.log(
      `40 hostile calls (limit ${limitMs.toFixed(0)} ms; benign baseline p90 ${baseline.p90StallMs.toFixed(1)} ms): event-loop delay p90 ${result.p90StallMs.toFixed(1)} ms, longest ${result.stallMs.toFixed(1)} ms; health median ${result.medianHealth.toFixed(1)} ms, slowest ${result.worstHealth.toFixed(1)} ms over ${result.probes} probes`,
    );
    // The process never freezes: the attack blocked it 850 ms per 27-character call (half of these
    // calls), which would put most of the event-loop delay and of the health answers far above
    // 50 ms. The single longest delay is reported but not asserted: on a machine whose cores are
    // shared with other test workers it measures the scheduler, not this process.
    expect(result.probes).toBeGreaterThan(3);
    expect(result.p90StallMs).toBeLessThan(limitMs);
    expect(result.medianHealth).toBeLessThan(limitMs);
  });

  it('refuses inputs above the size cap with 400', async () => {
    const { slug } = await appWithSchema(schemaWith({}));
    const answer = await api('POST', `/api/app/${slug}/completion-messages`, { inputs: { query: 'x'.repeat(70_000) } });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().params).toBe('inputs');
  });
});
