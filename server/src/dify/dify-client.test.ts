// Dify's own JS SDK (dify-client, unmodified) against a running Tollbooth: every call it makes on
// an app's base URL {PUBLIC_URL}/api/app/{slug}, and exactly one charge per successful call.
import type { Readable } from 'node:stream';
import { ChatClient, CompletionClient, DifyClient } from 'dify-client';
import { describe, expect, it } from 'vitest';
import { listenOnLoopback, paidTestContextForFile } from '../test-support/app.ts';
import { callerWithKey } from '../test-support/priced-apps.ts';

const PRICE = 7;
const ctx = await paidTestContextForFile({ PROVIDER_TIMEOUT_MS: '120000', RATE_LIMIT_PER_MINUTE: '100000' });
const baseUrl = await listenOnLoopback(ctx.app);
const ownerToken = await ctx.tokenFor('dify-sdk-owner', { name: 'Owl Creator' });
const { model: upstream, api } = ctx;

let counter = 0;
/** A live public prompt app priced PRICE cents, answered by the OpenAI-compatible fake (not the free demo model). */
async function liveApp(mode: 'completion' | 'chat', prompt: { prompt_template?: string; input_schema?: object } = {}, visibility = 'public') {
  const created = await api('POST', '/api/app/', ownerToken, {
    name: `SDK ${mode} ${++counter}`,
    type: 'prompt',
    visibility,
    price_cents: PRICE,
    interaction_mode: mode,
  });
  expect(created.statusCode).toBe(201);
  const slug = created.json().slug as string;
  if (prompt.prompt_template) {
    const updated = await api('PATCH', `/api/app/${slug}/prompt/`, ownerToken, { ...prompt, changelog: 'inputs' });
    expect(updated.statusCode, updated.body).toBeLessThan(300);
  }
  expect((await api('PATCH', `/api/app/${slug}/update_status/`, ownerToken, { status: 'live' })).statusCode).toBe(200);
  return slug;
}

const newCaller = (name: string) => callerWithKey(ctx, name, 'sdk');

const credits = async (token: string) => (await api('GET', '/api/billing/balance/', token)).json().credits_cents as number;
const appUrl = (slug: string) => `${baseUrl}/api/app/${slug}`;

async function ledgerIsBalanced() {
  const { rows } = await ctx.database.db.query<{ total: number }>('SELECT coalesce(sum(amount_cents), 0)::bigint AS total FROM ledger_entries');
  expect(Number(rows[0]!.total)).toBe(0);
}

/** dify-client's JavaScript as it is; its index.d.ts lags it (rating is "like"/"dislike", rename takes auto_generate, files are Dify file objects). */
const untyped = (client: DifyClient) =>
  client as unknown as {
    messageFeedback(id: string, rating: 'like' | 'dislike' | null, user: string): Promise<{ data: unknown }>;
    renameConversation(id: string, name: string, user: string, autoGenerate: boolean): Promise<{ data: { id: string; name: string } }>;
    createChatMessage(
      inputs: object,
      query: string,
      user: string,
      stream: boolean,
      conversationId: string | null,
      files: object[] | null,
    ): Promise<{ data: { answer: string } }>;
  };

type SseEvent = { event: string } & Record<string, unknown>;

/** Reads an SSE body to its end: the JSON events in order. */
async function readEvents(stream: Readable): Promise<SseEvent[]> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text
    .split('\n\n')
    .map((frame) => frame.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => Boolean(line))
    .map((line) => JSON.parse(line.slice(6)));
}

/** The HTTP status and Dify error body of a call the SDK rejected. */
async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    const response = (error as { response?: { status: number; data: unknown } }).response;
    if (response) return { status: response.status, body: response.data as { code: string; message: string; status: number } };
    throw error;
  }
  throw new Error('the call succeeded');
}

// Generous: the machine may be busy; nothing here waits on wall-clock time.
describe('dify-client against Tollbooth', { timeout: 240_000 }, () => {
  it('completion, blocking and streaming: files null accepted, Dify usage with price fields, one message id per stream, one charge each', async () => {
    const slug = await liveApp('completion', {
      prompt_template: 'Write about {{topic}} in a {{tone}} tone.{{extra}}',
      input_schema: {
        type: 'object',
        properties: {
          topic: { type: 'string', title: 'Topic', maxLength: 100 },
          tone: { type: 'string', enum: ['calm', 'loud'], default: 'calm' },
          extra: { type: 'string' },
        },
        required: ['topic'],
        additionalProperties: false,
      },
    });
    const caller = await newCaller('sdk-completion');
    const client = new CompletionClient(caller.key, appUrl(slug));
    upstream.setBehaviour({ text: 'Owls fly at night.', usage: { inputTokens: 9, outputTokens: 4 } });

    const blocking = await client.createCompletionMessage({ topic: 'owls' }, 'end-user-1');
    expect(blocking.status).toBe(200);
    expect(blocking.data).toMatchObject({ event: 'message', mode: 'completion', answer: 'Owls fly at night.', conversation_id: '' });
    expect(blocking.data.id).toBe(blocking.data.message_id);
    expect(blocking.data.metadata.usage).toMatchObject({
      prompt_tokens: 9,
      completion_tokens: 4,
      total_tokens: 13,
      total_price: '0.0700000',
      prompt_price: '0.0000000',
      completion_price: '0.0000000',
      currency: 'USD',
    });
    // The omitted optional inputs: the schema default, and an empty string for the one without.
    const sent = upstream.lastRequest().body as { messages: { role: string; content: string }[] };
    expect(sent.messages.at(-1)!.content).toBe('Write about owls in a calm tone.');
    expect(await credits(caller.token)).toBe(500 - PRICE);

    upstream.setBehaviour({ text: 'Owls hunt mice at night.', usage: { inputTokens: 9, outputTokens: 6 } });
    const streamed = await client.createCompletionMessage({ topic: 'owls', tone: 'loud' }, 'end-user-1', true);
    expect(streamed.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = await readEvents(streamed.data);
    const chunks = events.filter((event) => event.event === 'message');
    const end = events.at(-1)!;
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((event) => event.answer).join('')).toBe('Owls hunt mice at night.');
    expect(end).toMatchObject({ event: 'message_end', metadata: { usage: { total_price: '0.0700000', currency: 'USD' } } });
    expect(new Set(chunks.map((event) => event.message_id))).toEqual(new Set([end.message_id]));
    expect(new Set(chunks.map((event) => event.task_id))).toEqual(new Set([end.task_id]));
    expect(await credits(caller.token)).toBe(500 - 2 * PRICE);

    // The other mode's endpoint: Dify's 400 not_chat_app, nothing charged.
    const chat = await failure(new ChatClient(caller.key, appUrl(slug)).createChatMessage({ topic: 'owls' }, 'Hi', 'end-user-1'));
    expect(chat).toMatchObject({ status: 400, body: { code: 'not_chat_app', status: 400 } });
    expect(await credits(caller.token)).toBe(500 - 2 * PRICE);
    await ledgerIsBalanced();
  });

  it('chat: a new conversation streamed carries its id in every chunk; conversations, messages, rename, feedback and delete are the caller’s own', async () => {
    const slug = await liveApp('chat');
    const caller = await newCaller('sdk-chat');
    const client = new ChatClient(caller.key, appUrl(slug));

    upstream.setBehaviour({ text: 'Hello there, owl friend.' });
    const first = await client.createChatMessage({}, 'Tell me about owls', 'end-user-2', true);
    const events = await readEvents(first.data);
    const chunks = events.filter((event) => event.event === 'message');
    const end = events.at(-1)!;
    expect(end.event).toBe('message_end');
    expect(end.conversation_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(chunks.map((event) => event.conversation_id))).toEqual(new Set([end.conversation_id]));
    expect(new Set(chunks.map((event) => event.message_id))).toEqual(new Set([end.message_id]));
    const conversationId = end.conversation_id as string;

    upstream.setBehaviour({ text: 'They hunt at night.' });
    const second = await client.createChatMessage({}, 'What do they do?', 'end-user-2', false, conversationId);
    expect(second.data).toMatchObject({ mode: 'chat', conversation_id: conversationId, answer: 'They hunt at night.' });
    const history = upstream.lastRequest().body as { messages: { content: string }[] };
    expect(history.messages.map((message) => message.content)).toContain('Hello there, owl friend.');
    upstream.setBehaviour({ text: 'Another topic.' });
    const other = await client.createChatMessage({}, 'Something else', 'end-user-2');
    expect(await credits(caller.token)).toBe(500 - 3 * PRICE);

    // The completion endpoint on a chat app: Dify's app_unavailable, not charged.
    const wrongMode = await failure(new CompletionClient(caller.key, appUrl(slug)).createCompletionMessage({ query: 'x' }, 'end-user-2'));
    expect(wrongMode).toMatchObject({ status: 400, body: { code: 'app_unavailable' } });

    // Conversations, newest activity first, paged (dify-client sends first_id; last_id is Dify's name).
    const all = await client.getConversations('end-user-2');
    expect(all.data.data.map((conversation: { id: string }) => conversation.id)).toEqual([other.data.conversation_id, conversationId]);
    expect(all.data.data[1]).toMatchObject({ name: 'Tell me about owls', status: 'normal', inputs: {} });
    const page1 = await client.getConversations('end-user-2', null, 1);
    expect(page1.data).toMatchObject({ limit: 1, has_more: true });
    const page2 = await client.getConversations('end-user-2', page1.data.data[0].id, 1);
    expect(page2.data.data.map((conversation: { id: string }) => conversation.id)).toEqual([conversationId]);
    expect(page2.data.has_more).toBe(false);
    const page2ByLastId = await client.sendRequest('GET', '/conversations', null, { user: 'end-user-2', last_id: page1.data.data[0].id, limit: 1 });
    expect(page2ByLastId.data.data[0].id).toBe(conversationId);

    // Messages, oldest first, paged backwards by first_id.
    const messages = await client.getConversationMessages('end-user-2', conversationId);
    expect(messages.data.data.map((message: { query: string; answer: string }) => [message.query, message.answer])).toEqual([
      ['Tell me about owls', 'Hello there, owl friend.'],
      ['What do they do?', 'They hunt at night.'],
    ]);
    expect(messages.data.data[0].id).toBe(end.message_id);
    expect(messages.data.data[1].id).toBe(second.data.message_id);
    const older = await client.getConversationMessages('end-user-2', conversationId, second.data.message_id, 1);
    expect(older.data).toMatchObject({ limit: 1, has_more: false });
    expect(older.data.data.map((message: { id: string }) => message.id)).toEqual([end.message_id]);
    const latest = await client.getConversationMessages('end-user-2', conversationId, null, 1);
    expect(latest.data.has_more).toBe(true);

    // Feedback, shown on the message; suggested questions are an empty list.
    expect((await untyped(client).messageFeedback(second.data.message_id, 'like', 'end-user-2')).data).toEqual({ result: 'success' });
    const rated = await client.getConversationMessages('end-user-2', conversationId);
    expect(rated.data.data[1].feedback).toEqual({ rating: 'like' });
    expect(rated.data.data[0].feedback).toBeNull();
    const suggested = await client.sendRequest('GET', `/messages/${second.data.message_id}/suggested`, null, { user: 'end-user-2' });
    expect(suggested.data).toEqual({ result: 'success', data: [] });

    // Rename, by name and generated.
    expect((await untyped(client).renameConversation(conversationId, 'Owl talk', 'end-user-2', false)).data).toMatchObject({
      id: conversationId,
      name: 'Owl talk',
    });
    expect((await client.getConversations('end-user-2')).data.data[1].name).toBe('Owl talk');
    expect((await untyped(client).renameConversation(conversationId, '', 'end-user-2', true)).data.name).toBe('Tell me about owls');

    // Another caller sees none of it.
    const stranger = await newCaller('sdk-stranger');
    const strangerClient = new ChatClient(stranger.key, appUrl(slug));
    expect((await strangerClient.getConversations('end-user-2')).data.data).toEqual([]);
    expect((await failure(strangerClient.getConversationMessages('end-user-2', conversationId))).status).toBe(404);
    expect((await failure(untyped(strangerClient).messageFeedback(second.data.message_id, 'dislike', 'end-user-2'))).status).toBe(404);
    expect((await failure(untyped(strangerClient).renameConversation(conversationId, 'Mine', 'end-user-2', false))).status).toBe(404);
    expect((await failure(strangerClient.deleteConversation(conversationId, 'end-user-2'))).status).toBe(404);
    expect((await failure(strangerClient.createChatMessage({}, 'Continue', 'end-user-2', false, conversationId))).status).toBe(404);

    // Delete: gone from the list and its messages are 404.
    expect((await client.deleteConversation(conversationId, 'end-user-2')).status).toBe(204);
    expect((await client.getConversations('end-user-2')).data.data.map((conversation: { id: string }) => conversation.id)).toEqual([
      other.data.conversation_id,
    ]);
    expect((await failure(client.getConversationMessages('end-user-2', conversationId))).status).toBe(404);
    expect(await credits(caller.token)).toBe(500 - 3 * PRICE);
    expect(await credits(stranger.token)).toBe(500);
    await ledgerIsBalanced();
  });

  it('parameters: the input form from the input schema, with a key and anonymously for a live public app', async () => {
    const slug = await liveApp('completion', {
      prompt_template: '{{topic}} {{tone}} {{count}} {{notes}}',
      input_schema: {
        type: 'object',
        properties: {
          topic: { type: 'string', title: 'Topic', maxLength: 100, description: 'What to write about' },
          tone: { type: 'string', enum: ['calm', 'loud'], default: 'calm' },
          count: { type: 'integer', minimum: 1, default: 3 },
          notes: { type: 'string' },
        },
        required: ['topic'],
        additionalProperties: false,
      },
    });
    const caller = await newCaller('sdk-parameters');
    const parameters = await new DifyClient(caller.key, appUrl(slug)).getApplicationParameters('end-user-3');
    expect(parameters.data.user_input_form).toEqual([
      { 'text-input': { label: 'Topic', variable: 'topic', required: true, default: '', max_length: 100, description: 'What to write about' } },
      { select: { label: 'tone', variable: 'tone', required: false, default: 'calm', options: ['calm', 'loud'] } },
      { number: { label: 'count', variable: 'count', required: false, default: 3 } },
      { paragraph: { label: 'notes', variable: 'notes', required: false, default: '' } },
    ]);
    expect(parameters.data.file_upload).toMatchObject({ enabled: true, image: { enabled: true, transfer_methods: ['local_file'] } });
    expect(parameters.data.system_parameters).toMatchObject({ file_size_limit: 15 });

    const anonymous = await fetch(`${appUrl(slug)}/parameters`);
    expect(anonymous.status).toBe(200);
    expect((await anonymous.json()).user_input_form).toEqual(parameters.data.user_input_form);
    const info = await fetch(`${appUrl(slug)}/info`);
    expect(await info.json()).toMatchObject({ mode: 'completion', author_name: 'Owl Creator', tags: [] });
    expect((await fetch(`${appUrl(slug)}/meta`)).status).toBe(200);
    expect(await (await fetch(`${appUrl(slug)}/site`)).json()).toMatchObject({ title: expect.stringContaining('SDK completion') });

    // A private app is not there for anyone but its owner; its owner reads it with a token.
    const hidden = await liveApp('completion', {}, 'private');
    expect((await fetch(`${appUrl(hidden)}/parameters`)).status).toBe(404);
    expect((await failure(new DifyClient(caller.key, appUrl(hidden)).getApplicationParameters('u'))).status).toBe(404);
    expect((await api('GET', `/api/app/${hidden}/parameters`, ownerToken)).statusCode).toBe(200);
    // Conversations need a key.
    expect((await fetch(`${appUrl(slug)}/conversations`)).status).toBe(401);
  });

  it('files/upload, then the file in a call; stop before any answer chunk is free, after one it is charged once', async () => {
    const slug = await liveApp('chat');
    const caller = await newCaller('sdk-files');
    const client = new ChatClient(caller.key, appUrl(slug));
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('89504e470d0a1a0a', 'hex')], { type: 'image/png' }), 'owl.png');
    form.append('user', 'end-user-4');
    const uploaded = await client.fileUpload(form);
    expect(uploaded.status).toBe(201);
    expect(uploaded.data).toMatchObject({ name: 'owl.png', extension: 'png', mime_type: 'image/png' });

    upstream.setBehaviour({ text: 'A small owl.' });
    const answered = await untyped(client).createChatMessage({}, 'What is this?', 'end-user-4', false, null, [
      { type: 'image', transfer_method: 'local_file', upload_file_id: uploaded.data.id },
    ]);
    expect(answered.data.answer).toBe('A small owl.');
    expect(JSON.stringify(upstream.lastRequest().body)).toContain('data:image/png;base64,');
    expect(await credits(caller.token)).toBe(500 - PRICE);

    // Stopped while the model is still silent: the stream ends with message_end priced 0, nothing charged, the upstream aborted.
    upstream.setBehaviour({ delayMs: 60_000 });
    const silent = await client.createChatMessage({}, 'Slow question', 'end-user-4', true);
    const taskId = silent.headers['x-task-id'] as string;
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
    const stop = await client.sendRequest('POST', `/chat-messages/${taskId}/stop`, { user: 'end-user-4' });
    expect(stop.data).toEqual({ result: 'success' });
    const stoppedEvents = await readEvents(silent.data);
    expect(stoppedEvents.filter((event) => event.event === 'message')).toEqual([]);
    expect(stoppedEvents.at(-1)).toMatchObject({ event: 'message_end', task_id: taskId, metadata: { usage: { total_price: '0.0000000' } } });
    await upstream.lastRequest().closed;
    expect(upstream.lastRequest().aborted).toBe(true);
    expect(await credits(caller.token)).toBe(500 - PRICE);

    // Stopped after the first chunk: charged once, message_end carries the price.
    upstream.setBehaviour({ delayMs: 0, text: 'one two three four five six', chunks: (text) => text.split(' ').map((word) => `${word} `), hangAfterChunks: 1 });
    const partial = await client.createChatMessage({}, 'Long answer', 'end-user-4', true);
    const partialTask = partial.headers['x-task-id'] as string;
    const reader = (partial.data as Readable)[Symbol.asyncIterator]();
    let received = '';
    while (!received.includes('"event":"message"')) received += ((await reader.next()).value as Buffer).toString();
    // Another caller cannot stop it.
    const stranger = await newCaller('sdk-stopper');
    await new ChatClient(stranger.key, appUrl(slug)).sendRequest('POST', `/chat-messages/${partialTask}/stop`, { user: 'x' });
    expect((await client.sendRequest('POST', `/chat-messages/${partialTask}/stop`, { user: 'end-user-4' })).data).toEqual({ result: 'success' });
    for (let next = await reader.next(); !next.done; next = await reader.next()) received += (next.value as Buffer).toString();
    const partialEvents = received
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: '))
      .map((frame) => JSON.parse(frame.slice(6)));
    expect(partialEvents.at(-1)).toMatchObject({ event: 'message_end', metadata: { usage: { total_price: '0.0700000' } } });
    expect(await credits(caller.token)).toBe(500 - 2 * PRICE);
    expect(await credits(stranger.token)).toBe(500);
    await ledgerIsBalanced();
  });
});
