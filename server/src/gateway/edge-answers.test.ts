// Issue 24, item 8: answers at the edges. Malformed multipart is the caller's mistake (400, not
// 500) on both upload routes; a draft or archived app is not there (404) to anyone but its owner on
// Dify's info/parameters/site; /v1 answers OpenAI's envelope with our codes, never Fastify's.

import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaidTestContext, type PaidTestContext } from '../test-support/app.ts';

let ctx: PaidTestContext;
let owner: string;
let stranger: string;
let liveSlug: string;
let base: string;

async function promptApp(status: 'draft' | 'live' | 'archived', visibility = 'public') {
  const created = await ctx.api('POST', '/api/app/', owner, { name: `Edge ${status}`, type: 'prompt', visibility, price_cents: 1 });
  expect(created.statusCode).toBe(201);
  const slug = created.json().slug as string;
  if (status !== 'draft') expect((await ctx.api('PATCH', `/api/app/${slug}/update_status/`, owner, { status })).statusCode).toBe(200);
  return slug;
}

/** A stranger's POST to `url` with this Content-Type and raw body. */
const strangerPost = (url: string, contentType: string, payload: string) =>
  ctx.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${stranger}`, 'content-type': contentType }, payload });

beforeAll(async () => {
  ctx = await createPaidTestContext();
  owner = await ctx.tokenFor('edge-owner');
  stranger = await ctx.tokenFor('edge-stranger');
  liveSlug = await promptApp('live');
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
});
afterAll(() => ctx?.close());

describe('malformed multipart uploads', () => {
  for (const route of ['file-upload/', 'files/upload']) {
    it(`answers 400 naming the file field on ${route}: no boundary, a truncated body, a body that is not multipart`, async () => {
      const url = `/api/app/${liveSlug}/${route}`;
      const noBoundary = await strangerPost(url, 'multipart/form-data', 'whatever');
      expect(noBoundary.statusCode).toBe(400);
      expect(noBoundary.json()).toMatchObject({ code: 'invalid_param', params: 'file' });

      const truncated = await strangerPost(
        url,
        'multipart/form-data; boundary=XYZ',
        '--XYZ\r\ncontent-disposition: form-data; name="file"; filename="a.png"\r\ncontent-type: image/png\r\n\r\nPNGDATA',
      );
      expect(truncated.statusCode).toBe(400);
      expect(truncated.json()).toMatchObject({ code: 'invalid_param', params: 'file' });

      const garbage = await strangerPost(url, 'multipart/form-data; boundary=XYZ', 'this is not multipart at all');
      expect(garbage.statusCode).toBe(400);
      expect(garbage.json()).toMatchObject({ code: 'invalid_param', params: 'file' });
    });

    it(`answers 400, not 415, on ${route} when the multipart Content-Type itself is broken (its boundary not after a ";")`, async () => {
      const url = `/api/app/${liveSlug}/${route}`;
      const part = '--XYZ\r\ncontent-disposition: form-data; name="file"; filename="a.txt"\r\ncontent-type: text/plain\r\n\r\nhello\r\n--XYZ--\r\n';
      for (const contentType of ['multipart/form-data boundary=XYZ', 'multipart/form-data, boundary=XYZ', 'Multipart/Form-Data boundary=XYZ; charset=utf-8']) {
        const broken = await strangerPost(url, contentType, part);
        expect(broken.statusCode, contentType).toBe(400);
        const body = broken.json();
        // The one error shape: {code, message, status}, the message naming the field and what is wrong.
        expect(body).toMatchObject({ code: 'invalid_param', status: 400, params: 'file' });
        expect(body.message).toMatch(/^file: the multipart\/form-data body is malformed \(.*Content-Type.*\)$/);
      }
      // The same body with its Content-Type well formed is an upload; another media type is still 415.
      const wellFormed = await strangerPost(url, 'multipart/form-data; boundary=XYZ', part);
      expect(wellFormed.statusCode).toBe(201);
      const otherType = await strangerPost(url, 'multipart/mixed; boundary=XYZ', part);
      expect(otherType.statusCode).toBe(415);
      expect(otherType.json()).toMatchObject({ code: 'unsupported_media_type', status: 415 });
    });
  }

  it('stay on the upload routes: a paid call takes JSON, and a multipart body there is a 400 naming the body, well formed or not', async () => {
    const part = '--XYZ\r\ncontent-disposition: form-data; name="query"\r\n\r\nhello\r\n--XYZ--\r\n';
    for (const url of [
      `/api/app/${liveSlug}/completion-messages`,
      `/api/app/${liveSlug}/chat-messages`,
      `/api/app/${liveSlug}/workflows/run`,
      `/v1/invoke/${liveSlug}`,
      `/api/embed/${liveSlug}/chat-messages`,
      '/v1/chat/completions',
      '/v1/responses',
    ]) {
      for (const contentType of ['multipart/form-data; boundary=XYZ', 'multipart/form-data boundary=XYZ', 'multipart/form-data']) {
        const answer = await strangerPost(url, contentType, part);
        expect(answer.statusCode, `${url} ${contentType}`).toBe(400);
        expect(answer.body, url).toMatch(/invalid_param/);
        expect(answer.body, url).toMatch(/multipart/);
      }
    }
  });
});

describe("Dify's info, parameters and site of an app that is not live", () => {
  it('answer 404 to strangers and anonymous visitors, as for a private app; the owner still reads them', async () => {
    for (const status of ['draft', 'archived'] as const) {
      const slug = await promptApp(status);
      const privateSlug = await promptApp(status, 'private');
      for (const path of ['info', 'parameters', 'site']) {
        for (const target of [slug, privateSlug]) {
          const asStranger = await ctx.api('GET', `/api/app/${target}/${path}`, stranger);
          expect(asStranger.statusCode, `${status} ${path}`).toBe(404);
          expect(asStranger.json().code).toBe('not_found');
          const anonymous = await ctx.app.inject({ method: 'GET', url: `/api/app/${target}/${path}` });
          expect(anonymous.statusCode, `${status} ${path} anonymous`).toBe(404);
        }
        const unknown = await ctx.api('GET', `/api/app/no-such-app-at-all/${path}`, stranger);
        expect(unknown.statusCode).toBe(404);
        expect((await ctx.api('GET', `/api/app/${slug}/${path}`, owner)).statusCode, `${status} ${path} owner`).toBe(200);
      }
    }
    expect((await ctx.api('GET', `/api/app/${liveSlug}/info`, stranger)).statusCode).toBe(200);
  });
});

describe('/v1 errors', () => {
  it("never carry Fastify's codes: malformed JSON, an empty body, a wrong content type are OpenAI-shaped with our codes", async () => {
    const key = stranger;
    for (const [contentType, body] of [
      ['application/json', '{"model": '],
      ['application/json', ''],
      ['text/plain', 'hello'],
    ] as const) {
      const answer = await fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': contentType },
        body,
      });
      const text = await answer.text();
      expect(answer.status, `${contentType} ${body}`).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(text).not.toMatch(/FST_/);
      const parsed = JSON.parse(text) as { error: { code: string; type: string; message: string } };
      expect(parsed.error.type).toBe('invalid_request_error');
      expect(['invalid_param', 'unsupported_media_type']).toContain(parsed.error.code);
    }
    // The OpenAI SDK surfaces it as its own BadRequestError.
    const client = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
    const failure = await client.chat.completions
      .create({ model: liveSlug, messages: [] }, { body: '{"model": ' as never, headers: { 'content-type': 'application/json' } })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(JSON.stringify((failure as InstanceType<typeof OpenAI.APIError>).error)).not.toMatch(/FST_/);
  });
});
