import { expect } from 'vitest';
import type { App } from '../app.ts';

/** One blocking completion call ({ query: 'Hi' }) to a prompt app with a caller's key or session: its answer, whatever it is. */
export function sendCompletion(app: App, slug: string, token: string) {
  return app.inject({
    method: 'POST',
    url: `/api/app/${slug}/completion-messages`,
    headers: { authorization: `Bearer ${token}` },
    payload: { inputs: { query: 'Hi' }, response_mode: 'blocking', user: 'u' },
  });
}

/** One blocking completion call to a live prompt app with a caller's key or session, which must answer 200. */
export async function callCompletion(app: App, slug: string, token: string): Promise<void> {
  const response = await sendCompletion(app, slug, token);
  expect(response.statusCode, response.body).toBe(200);
}

/** `calls` such calls, one after the other. */
export async function callCompletions(app: App, slug: string, token: string, calls: number): Promise<void> {
  for (let i = 0; i < calls; i++) await callCompletion(app, slug, token);
}

/** `calls` completion calls ({ query: `call ${i}` }) to a live prompt app, one after the other, each answered 200: their invocation ids. */
export async function answeredCalls(app: App, slug: string, token: string, calls: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < calls; i++) {
    const response = await app.inject({
      method: 'POST',
      url: `/api/app/${slug}/completion-messages`,
      headers: { authorization: `Bearer ${token}` },
      payload: { inputs: { query: `call ${i}` } },
    });
    expect(response.statusCode).toBe(200);
    ids.push(response.json().id);
  }
  return ids;
}
