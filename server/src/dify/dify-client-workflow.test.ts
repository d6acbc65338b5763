// dify-client (unmodified) against a Tollbooth workflow app wrapping a Dify app (the Dify fake):
// runWorkflow blocking and streaming, charged once each; the parameters are the Dify app's form;
// the app's mode decides which endpoints answer.
import type { Readable } from 'node:stream';
import { ChatClient, CompletionClient } from 'dify-client';
import { describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../test-support/app.ts';
import { difyTestContextForFile, workflowAppFields } from '../test-support/dify-app.ts';
import type { DifyFakeApp } from '../test-support/fakes/dify-fake.ts';
import { callerWithKey } from '../test-support/priced-apps.ts';
import { sendRequest } from '../test-support/server-process.ts';

const KEY = 'app-secretDifyKey0000LAST';
const PRICE = 9;
const ctx = await difyTestContextForFile({ RATE_LIMIT_PER_MINUTE: '100000' }, { apiKey: KEY });
const { dify } = ctx;
const base = await listenOnLoopback(ctx.app);
const owner = await ctx.tokenFor('sdk-wf-owner', { name: 'Flow Owner' });

const request = (method: string, path: string, token: string, body?: object) => sendRequest(base, method, path, token, body);

let counter = 0;
async function liveWorkflowApp(app: Partial<DifyFakeApp>) {
  Object.assign(dify.app, app);
  const created = await request('POST', '/api/app/', owner, workflowAppFields(dify, KEY, `SDK Flow ${++counter}`, PRICE));
  expect(created.status).toBe(201);
  const { slug } = (await created.json()) as { slug: string };
  expect((await request('PATCH', `/api/app/${slug}/workflow/`, owner, {})).status).toBe(200);
  expect((await request('PATCH', `/api/app/${slug}/update_status/`, owner, { status: 'live' })).status).toBe(200);
  return slug;
}

const newCaller = (name: string) => callerWithKey(ctx, name, 'sdk');

const credits = async (token: string) => ((await (await request('GET', '/api/billing/balance/', token)).json()) as { credits_cents: number }).credits_cents;

/** dify-client's runWorkflow exists in its JavaScript (index.js) but not in its index.d.ts. */
const withRunWorkflow = (client: CompletionClient) =>
  client as CompletionClient & {
    runWorkflow(inputs: object, user: string, stream?: boolean): Promise<{ data: { workflow_run_id: string; data: { id: string } } & Record<string, unknown> }>;
  };

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    const response = (error as { response?: { status: number; data: unknown } }).response;
    if (response) return { status: response.status, body: response.data as { code: string } };
    throw error;
  }
  throw new Error('the call succeeded');
}

describe('dify-client against a workflow app', { timeout: 240_000 }, () => {
  it('runWorkflow blocking and streaming, charged once each; parameters are the Dify form; other modes refused', async () => {
    const form = [{ paragraph: { label: 'Text', variable: 'text', required: true } }];
    const slug = await liveWorkflowApp({ mode: 'workflow', userInputForm: form });
    const caller = await newCaller('sdk-wf-caller');
    const client = withRunWorkflow(new CompletionClient(caller.key, `${base}/api/app/${slug}`));

    const parameters = await client.getApplicationParameters('end-user-9');
    expect(parameters.data.user_input_form).toEqual(form);
    expect((await client.sendRequest('GET', '/info')).data).toMatchObject({ mode: 'workflow' });

    dify.setBehaviour({ text: 'Workflow result', usage: { inputTokens: 3, outputTokens: 9 } });
    const blocking = await client.runWorkflow({ text: 'summarise this' }, 'end-user-9');
    expect(blocking.data).toMatchObject({ data: { status: 'succeeded', outputs: { text: 'Workflow result' }, error: null } });
    expect(blocking.data.workflow_run_id).toBe(blocking.data.data.id);
    expect(dify.lastRequest().path).toBe('/v1/workflows/run');
    expect(await credits(caller.token)).toBe(500 - PRICE);

    const streamed = await client.runWorkflow({ text: 'again' }, 'end-user-9', true);
    let text = '';
    for await (const chunk of streamed.data as unknown as Readable) text += chunk.toString();
    const events = text
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: '))
      .map((frame) => JSON.parse(frame.slice(6)) as { event: string; workflow_run_id: string; data: { text?: string; status?: string } });
    expect(events[0]!.event).toBe('workflow_started');
    expect(
      events
        .filter((event) => event.event === 'text_chunk')
        .map((event) => event.data.text)
        .join(''),
    ).toBe('Workflow result');
    expect(events.at(-1)).toMatchObject({ event: 'workflow_finished', data: { status: 'succeeded' } });
    expect(new Set(events.map((event) => event.workflow_run_id)).size).toBe(1);
    expect(await credits(caller.token)).toBe(500 - 2 * PRICE);

    // A required input missing: Dify's 400 before anything is charged.
    expect(await failure(client.runWorkflow({}, 'end-user-9'))).toMatchObject({ status: 400, body: { code: 'invalid_param' } });
    // chat-messages on a workflow app: not_chat_app.
    const chat = await failure(new ChatClient(caller.key, `${base}/api/app/${slug}`).createChatMessage({ text: 'x' }, 'Hi', 'end-user-9'));
    expect(chat).toMatchObject({ status: 400, body: { code: 'not_chat_app' } });
    expect(await credits(caller.token)).toBe(500 - 2 * PRICE);

    // workflows/run on a Dify chat app: not_workflow_app, not charged.
    const chatSlug = await liveWorkflowApp({ mode: 'advanced-chat', userInputForm: [] });
    const run = await failure(withRunWorkflow(new CompletionClient(caller.key, `${base}/api/app/${chatSlug}`)).runWorkflow({}, 'end-user-9'));
    expect(run).toMatchObject({ status: 400, body: { code: 'not_workflow_app' } });
    expect(await credits(caller.token)).toBe(500 - 2 * PRICE);
  });

  it("with a trailing-slash base URL: a run, then its status, the logs and a stopped stream by plain HTTP; audio answers Dify's disabled-feature 400", async () => {
    const form = [{ paragraph: { label: 'Text', variable: 'text', required: true } }];
    const slug = await liveWorkflowApp({ mode: 'workflow', userInputForm: form });
    const caller = await newCaller('sdk-wf-status');
    // Base URLs copied with a trailing slash: dify-client then asks for …/{slug}//workflows/run.
    const client = withRunWorkflow(new CompletionClient(caller.key, `${base}/api/app/${slug}/`));
    dify.setBehaviour({ text: 'Workflow result', usage: { inputTokens: 3, outputTokens: 9 } });
    const run = await client.runWorkflow({ text: 'summarise this' }, 'end-user-7');
    const runId = run.data.workflow_run_id;
    expect((run as unknown as { headers: Record<string, string> }).headers['x-price-cents']).toBe(String(PRICE));
    expect(await credits(caller.token)).toBe(500 - PRICE);

    const status = await request('GET', `/api/app/${slug}/workflows/run/${runId}`, caller.key);
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ id: runId, workflow_id: slug, status: 'succeeded', total_tokens: 12, error: null });
    expect((await request('GET', `/api/app/${slug}/workflows/run/${runId}`, (await newCaller('sdk-wf-other')).key)).status).toBe(404);

    // A streamed run the caller stops before any output: workflow_finished "stopped", not charged.
    dify.setBehaviour({ text: 'never sent', hangAfterChunks: 0 });
    const streamed = await client.runWorkflow({ text: 'again' }, 'end-user-7', true);
    const reader = streamed.data as unknown as Readable;
    let text = '';
    let stopped = false;
    for await (const chunk of reader) {
      text += chunk.toString();
      const started = /data: (\{"event":"workflow_started".*\})\n\n/.exec(text);
      if (started && !stopped) {
        stopped = true;
        const { task_id } = JSON.parse(started[1]!) as { task_id: string };
        const stop = await request('POST', `/api/app/${slug}/workflows/tasks/${task_id}/stop`, caller.key, { user: 'end-user-7' });
        expect(await stop.json()).toEqual({ result: 'success' });
      }
    }
    expect(text).toContain('"status":"stopped"');
    expect(await credits(caller.token)).toBe(500 - PRICE);

    const logs = await request('GET', `/api/app/${slug}/workflows/logs?limit=1`, caller.key);
    const page = (await logs.json()) as { total: number; has_more: boolean; data: { workflow_run: { status: string } }[] };
    expect(page).toMatchObject({ page: 1, limit: 1, total: 2, has_more: true });
    expect(page.data[0]!.workflow_run.status).not.toBe('succeeded');
    const succeeded = (await (await request('GET', `/api/app/${slug}/workflows/logs?status=succeeded`, caller.key)).json()) as { data: { id: string }[] };
    expect(succeeded.data.map((entry) => entry.id)).toEqual([runId]);

    for (const [path, message] of [
      ['/audio-to-text', 'Speech to text is not enabled'],
      ['/text-to-audio', 'TTS is not enabled'],
    ]) {
      const refused = await failure(client.sendRequest('POST', path!, { text: 'hi', user: 'end-user-7' }));
      expect(refused).toMatchObject({ status: 400, body: { code: 'invalid_param', message } });
    }
  });
});
