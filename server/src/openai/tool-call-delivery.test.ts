// A stream whose answer is a tool call (OpenAI-compatible route, caller-supplied tools): a caller who
// hangs up after a tool-call piece was sent pays, as for text (docs/design.md's streaming rule, issue
// 24); one who hangs up before any piece of the answer does not.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPaidTestContext, listenOnLoopback } from '../test-support/app.ts';

let slug: string;
const PRICE = 7;
const ctx = await createPaidTestContext({ RATE_LIMIT_PER_MINUTE: '100000' });
const upstream = ctx.model;
const base = await listenOnLoopback(ctx.app);

beforeAll(async () => {
  const owner = await ctx.tokenFor('tool-owner');
  const created = await ctx.api('POST', '/api/app/', owner, { name: 'Tool Caller', type: 'prompt', visibility: 'public', price_cents: PRICE });
  slug = created.json().slug;
  // A small max_tokens, so the price covers the worst-case model cost and only the caller is charged.
  await ctx.app.inject({ method: 'PATCH', url: `/api/app/${slug}/prompt/`, headers: { authorization: `Bearer ${owner}` }, payload: { max_tokens: 100 } });
  await ctx.app.inject({ method: 'PATCH', url: `/api/app/${slug}/update_status/`, headers: { authorization: `Bearer ${owner}` }, payload: { status: 'live' } });
}, 180_000);
afterAll(() => ctx.close());

const tools = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
];

/** Streams a tool-calling answer, hangs up once `until` holds for what arrived, and answers the caller's credits after. */
async function hangUp(subject: string, upstreamFrames: number, until: (text: string) => boolean): Promise<number> {
  const token = await ctx.tokenFor(subject);
  upstream.setBehaviour({ hangAfterFrames: upstreamFrames });
  const abort = new AbortController();
  const response = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: slug, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools, stream: true }),
    signal: abort.signal,
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  while (!until(seen)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended first: ${seen}`);
    seen += decoder.decode(value, { stream: true });
  }
  abort.abort();
  await reader.read().catch(() => undefined);
  // The hang-up is recorded (charged or free) once the gateway noticed it.
  for (let attempt = 0; attempt < 200; attempt++) {
    const { rows } = await ctx.database.db.query('SELECT 1 FROM invocations i JOIN users u ON u.id = i.caller_id WHERE u.subject = $1', [subject]);
    if (rows.length > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const balance = await ctx.app.inject({ method: 'GET', url: '/api/billing/balance/', headers: { authorization: `Bearer ${token}` } });
  return balance.json().credits_cents as number;
}

it('charges a caller who left after a streamed tool-call piece, and not one who left before any', async () => {
  const signupCredits = ctx.config.signupCreditsCents;
  // The upstream sends its role chunk and the tool call's first piece, then stalls; the caller leaves once the piece arrived.
  expect(await hangUp('tool-after-piece', 2, (text) => text.includes('"tool_calls"'))).toBe(signupCredits - PRICE);
  // The upstream stalls after its role chunk: the caller saw only the gateway's own role chunk.
  expect(await hangUp('tool-before-piece', 1, (text) => text.includes('"role":"assistant"'))).toBe(signupCredits);
});
