// The money tests' callers and apps: a new user with a secret API key, and a live prompt app whose
// model (gpt-4-turbo, $10 / $30 per million tokens) the paid context's model fake answers.
import { expect } from 'vitest';
import type { TestContext } from './app.ts';

/** A new signed-in user (ctx.newUser, subject `${name}-N`) with a secret API key named "key": its token, key and id. */
export async function newUserWithKey(ctx: TestContext, name: string): Promise<{ token: string; key: string; id: string }> {
  const { token, id } = await ctx.newUser(name);
  const key = (await ctx.api('POST', '/api/keys/', token, { name: 'key' })).json().key as string;
  return { token, key, id };
}

/**
 * A live prompt app of the creator with this token: created public with `fields`, its prompt set to
 * gpt-4-turbo with `prompt`, then made live. Both writes must succeed. Its slug.
 */
export async function liveModelApp(ctx: TestContext, token: string, fields: object, prompt: object = {}): Promise<string> {
  const created = await ctx.api('POST', '/api/app/', token, { type: 'prompt', visibility: 'public', ...fields });
  expect(created.statusCode, created.body).toBe(201);
  const slug = created.json().slug as string;
  const configured = await ctx.api('PATCH', `/api/app/${slug}/prompt/`, token, { model: 'gpt-4-turbo', ...prompt });
  expect(configured.statusCode, configured.body).toBe(200);
  await ctx.api('PATCH', `/api/app/${slug}/update_status/`, token, { status: 'live' });
  return slug;
}

/** A caller signed in as `subject` with a secret API key named `keyName`, which must be created: its token and key. */
export async function callerWithKey(ctx: TestContext, subject: string, keyName: string): Promise<{ token: string; key: string }> {
  const token = await ctx.tokenFor(subject);
  const created = await ctx.api('POST', '/api/keys/', token, { name: keyName });
  expect(created.statusCode).toBe(201);
  return { token, key: created.json().key as string };
}
