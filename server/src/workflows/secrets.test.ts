// The creator's Dify key never appears in an answer, a log line or the database in plaintext,
// whatever happens to the call (success, refused key, provider error, test-config).
import { afterAll, expect, it } from 'vitest';
import { createDifyTestContext } from '../test-support/dify-app.ts';
import { capturedLog } from '../test-support/log-capture.ts';

const KEY = 'app-NeverLogThisKey-7Q9Z';
const { lines: logLines, stream } = capturedLog();
const ctx = await createDifyTestContext({}, { apiKey: KEY, app: { mode: 'chat' }, logger: { level: 'trace', stream } });
const { dify } = ctx;
afterAll(() => ctx.close());

it('keeps the key out of answers, logs and the database', async () => {
  const owner = await ctx.tokenFor('secret-owner');
  const caller = await ctx.tokenFor('secret-caller');
  const answers: string[] = [];
  const call = async (method: 'GET' | 'POST' | 'PATCH', url: string, token: string, payload?: object) => {
    const response = await ctx.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    answers.push(response.body);
    return response;
  };
  const created = await call('POST', '/api/app/', owner, {
    name: 'Secret Flow',
    type: 'workflow',
    visibility: 'public',
    provider_config: { app_id: 'a', api_key: KEY, base_url: dify.baseUrl },
  });
  const slug = created.json().slug;
  await call('PATCH', `/api/app/${slug}/update_status/`, owner, { status: 'live' });
  await call('GET', `/api/app/${slug}/`, owner);
  await call('GET', `/api/app/${slug}/workflow/`, owner);
  await call('PATCH', `/api/app/${slug}/workflow/`, owner, { timeout_seconds: 30 });
  await call('POST', `/api/app/${slug}/workflow/test-config/`, owner, { provider_config: {} });
  await call('GET', `/api/workflows/${slug}/versions/`, owner);
  expect((await call('POST', `/api/app/${slug}/chat-messages`, caller, { query: 'hi', inputs: {} })).statusCode).toBe(200);
  dify.setBehaviour({ status: 500, errorMessage: `upstream echoed the key ${KEY}` });
  expect((await call('POST', `/api/app/${slug}/chat-messages`, caller, { query: 'hi', inputs: {} })).statusCode).toBe(502);
  dify.setBehaviour({ status: 401 });
  await call('POST', `/api/app/${slug}/workflow/test-config/`, owner, { provider_config: {} });

  for (const answer of answers) expect(answer).not.toContain(KEY);
  expect(logLines.length).toBeGreaterThan(0);
  for (const line of logLines) expect(line).not.toContain(KEY);
  for (const table of ['apps', 'workflow_configs', 'workflow_versions', 'invocations', 'conversations', 'conversation_messages', 'app_daily_errors']) {
    const { rows } = await ctx.database.db.query(`SELECT * FROM ${table}`);
    expect(JSON.stringify(rows), table).not.toContain(KEY);
  }
});
