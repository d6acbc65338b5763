// A loopback fake of Dify's Service API (../shared/providers/dify-api.md), one Dify app per fake:
// GET /info and /parameters; chat-messages, completion-messages and workflows/run, blocking and
// streaming (message / agent_message / message_end / error and workflow_started / node_* /
// text_chunk / workflow_finished events, pings, and any extra event a test adds); conversations per
// user; files/upload; stop (recorded with its user and checked against the tasks started); Dify's
// error bodies. The app's mode and input form, error statuses and codes, slow answers, error events
// after HTTP 200 and cut or hanging streams are set by the test (setBehaviour and `app`).
import { randomUUID } from 'node:crypto';
import type { FakeExchange, FakeProviderServer, RecordedRequest, StreamFrame } from './http-fake.ts';
import { header, sendEventStream, sendJson, sendMalformedJson, startFakeServer } from './http-fake.ts';

export type DifyMode = 'chat' | 'advanced-chat' | 'agent-chat' | 'completion' | 'workflow';

export interface DifyFakeApp {
  mode: DifyMode;
  name: string;
  description: string;
  /** Dify's user_input_form entries. */
  userInputForm: Record<string, { label: string; variable: string; required: boolean; default?: string; options?: string[]; max_length?: number }>[];
  /** The code of the error body when the behaviour's status is not 200 (default from the status). */
  errorCode: string | null;
  /** Streaming: send an `error` event (after HTTP 200) after this many text chunks. */
  errorEventAfterChunks: number | null;
  /** workflow_finished status for workflow apps. */
  workflowStatus: 'succeeded' | 'failed';
  /**
   * Streaming chat/completion apps: more Dify events (message_file, message_replace, tts_message…)
   * sent after the first text chunk, each given the call's task_id, message_id and conversation_id.
   */
  extraEvents: Record<string, unknown>[];
  /**
   * Streaming: the whole stream, in order, instead of the built-in one (the test writes every event,
   * the last one included). Each event gets the call's task_id, and its message_id, conversation_id
   * and workflow_run_id where the event has that field.
   */
  script: Record<string, unknown>[] | null;
}

export interface DifyFake extends FakeProviderServer {
  /** The app the fake answers as; change its fields in a test. */
  app: DifyFakeApp;
  /** Back to the app the fake started with. */
  resetApp(): void;
  /** Back to the behaviour and the app the fake started with (before each test). */
  reset(): void;
  /** Files received by /files/upload: id, name, content, user. */
  uploads: { id: string; name: string; content: string; user: string }[];
  /** Task ids asked to stop. */
  stops: string[];
  /** Every stop request: the task, the user it was sent for, and whether the fake had started that task for that user. */
  stopRequests: { taskId: string; user: string; known: boolean }[];
  /** Task ids the fake started (task id → user). */
  tasks: Map<string, string>;
  /** conversation id → the user it belongs to. */
  conversations: Map<string, string>;
}

export const DEFAULT_DIFY_APP: DifyFakeApp = {
  mode: 'chat',
  name: 'Fake Dify App',
  description: 'A Dify app answered by the test fake',
  userInputForm: [],
  errorCode: null,
  errorEventAfterChunks: null,
  workflowStatus: 'succeeded',
  extraEvents: [],
  script: null,
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CHAT_MODES = new Set<DifyMode>(['chat', 'advanced-chat', 'agent-chat']);

const defaultCode = (status: number) =>
  status === 401
    ? 'unauthorized'
    : status === 403
      ? 'forbidden'
      : status === 404
        ? 'not_found'
        : status === 429
          ? 'too_many_requests'
          : status >= 500
            ? 'internal_server_error'
            : 'invalid_param';

/** baseUrl ends in /v1, like Dify's Service API base URL. */
export async function startDifyFake(options: { apiKey: string; app?: Partial<DifyFakeApp>; port?: number }): Promise<DifyFake> {
  const state = {
    app: { ...DEFAULT_DIFY_APP, ...options.app },
    uploads: [] as DifyFake['uploads'],
    stops: [] as string[],
    stopRequests: [] as DifyFake['stopRequests'],
    tasks: new Map<string, string>(),
    conversations: new Map<string, string>(),
  };
  const server = await startFakeServer((exchange) => answer(exchange, options.apiKey, state), '/v1', options.port ?? 0);
  return Object.assign(server, {
    app: state.app,
    resetApp() {
      Object.assign(state.app, DEFAULT_DIFY_APP, options.app);
    },
    reset() {
      server.resetBehaviour();
      Object.assign(state.app, DEFAULT_DIFY_APP, options.app);
    },
    uploads: state.uploads,
    stops: state.stops,
    stopRequests: state.stopRequests,
    tasks: state.tasks,
    conversations: state.conversations,
  }) as DifyFake;
}

function difyError(status: number, code: string, message: string) {
  return { code, message, status };
}

type FakeState = Pick<DifyFake, 'app' | 'uploads' | 'stops' | 'stopRequests' | 'tasks' | 'conversations'>;

function answer(exchange: FakeExchange, apiKey: string, state: FakeState): Promise<void> | void {
  const { request, behaviour, res } = exchange;
  const app = state.app;
  if (header(request, 'authorization') !== `Bearer ${apiKey}`) {
    res.setHeader('www-authenticate', 'Bearer realm="api"');
    return sendJson(res, 401, difyError(401, 'unauthorized', 'Access token is invalid'));
  }
  if (behaviour.status !== 200)
    return sendJson(res, behaviour.status, difyError(behaviour.status, app.errorCode ?? defaultCode(behaviour.status), behaviour.errorMessage));
  const route = `${request.method} ${request.path}`;
  if (route === 'GET /v1/info') {
    if (behaviour.malformed) return sendMalformedJson(res);
    return sendJson(res, 200, { name: app.name, description: app.description, tags: [], mode: app.mode, author_name: 'Fake Author' });
  }
  if (route === 'GET /v1/parameters') {
    return sendJson(res, 200, {
      opening_statement: '',
      suggested_questions: [],
      user_input_form: app.userInputForm,
      file_upload: { image: { enabled: true, number_limits: 3, transfer_methods: ['remote_url', 'local_file'] } },
      system_parameters: { file_size_limit: 15, image_file_size_limit: 10 },
    });
  }
  if (route === 'POST /v1/files/upload') return upload(exchange, state);
  const stop = /^POST \/v1\/(?:chat-messages|completion-messages|workflows\/tasks)\/([^/]+)\/stop$/.exec(route);
  if (stop) {
    const user = typeof (request.body as { user?: unknown } | undefined)?.user === 'string' ? (request.body as { user: string }).user : '';
    if (!user) return sendJson(res, 400, difyError(400, 'invalid_param', 'user is required'));
    state.stops.push(stop[1]!);
    state.stopRequests.push({ taskId: stop[1]!, user, known: state.tasks.get(stop[1]!) === user });
    return sendJson(res, 200, { result: 'success' });
  }
  if (route === 'POST /v1/chat-messages' || route === 'POST /v1/completion-messages' || route === 'POST /v1/workflows/run') {
    return call(exchange, route, state);
  }
  return sendJson(res, 404, difyError(404, 'not_found', `The requested URL was not found on the server: ${route}`));
}

function upload(exchange: FakeExchange, state: Pick<DifyFake, 'uploads'>) {
  const { request, res } = exchange;
  const contentType = header(request, 'content-type') ?? '';
  const boundary = /boundary=(.+)$/.exec(contentType)?.[1];
  if (!boundary) return sendJson(res, 400, difyError(400, 'no_file_uploaded', 'Please upload your file.'));
  const parts = request.rawBody.split(`--${boundary}`).slice(1, -1);
  let user = '';
  let file: { name: string; content: string; type: string } | null = null;
  for (const part of parts) {
    const [head = '', ...rest] = part.replace(/^\r\n/, '').split('\r\n\r\n');
    const content = rest.join('\r\n\r\n').replace(/\r\n$/, '');
    const name = /name="([^"]*)"/.exec(head)?.[1];
    const filename = /filename="([^"]*)"/.exec(head)?.[1];
    if (name === 'user') user = content;
    if (name === 'file' && filename !== undefined)
      file = { name: filename, content, type: /content-type: (.+)/i.exec(head)?.[1]?.trim() ?? 'application/octet-stream' };
  }
  if (!file) return sendJson(res, 400, difyError(400, 'no_file_uploaded', 'Please upload your file.'));
  if (!user) return sendJson(res, 400, difyError(400, 'invalid_param', 'user is required'));
  const id = randomUUID();
  state.uploads.push({ id, name: file.name, content: file.content, user });
  return sendJson(res, 201, {
    id,
    name: file.name,
    size: Buffer.byteLength(file.content),
    extension: file.name.split('.').pop() ?? '',
    mime_type: file.type,
    created_by: randomUUID(),
    created_at: Math.floor(Date.now() / 1000),
  });
}

function call(exchange: FakeExchange, route: string, state: Pick<DifyFake, 'app' | 'conversations' | 'tasks'>): Promise<void> | void {
  const { request, behaviour, res } = exchange;
  const app = state.app;
  const body = (request.body ?? {}) as {
    inputs?: Record<string, unknown>;
    query?: string;
    response_mode?: string;
    user?: string;
    conversation_id?: string;
  };
  const isChat = route === 'POST /v1/chat-messages';
  const isWorkflow = route === 'POST /v1/workflows/run';
  if (isChat && !CHAT_MODES.has(app.mode)) return sendJson(res, 400, difyError(400, 'not_chat_app', 'App mode does not match the API route.'));
  if (route === 'POST /v1/completion-messages' && app.mode !== 'completion')
    return sendJson(res, 400, difyError(400, 'app_unavailable', 'App unavailable, please check your app configurations.'));
  if (isWorkflow && app.mode !== 'workflow')
    return sendJson(res, 400, difyError(400, 'not_workflow_app', 'Please check if your app mode matches the right API route.'));
  if (!body.user) return sendJson(res, 400, difyError(400, 'invalid_param', 'user is required'));
  for (const entry of app.userInputForm) {
    const field = Object.values(entry)[0]!;
    const value = body.inputs?.[field.variable];
    if (field.required && (value === undefined || value === ''))
      return sendJson(res, 400, difyError(400, 'invalid_param', `${field.variable} is required in input form`));
  }
  const streaming = body.response_mode === 'streaming';
  let conversationId = '';
  if (isChat) {
    if (typeof body.query !== 'string' || body.query === '') return sendJson(res, 400, difyError(400, 'invalid_param', 'query is required'));
    if (app.mode === 'agent-chat' && !streaming) return sendJson(res, 400, difyError(400, 'invalid_param', 'Agent Chat App does not support blocking mode'));
    if (body.conversation_id) {
      if (!UUID.test(body.conversation_id)) return sendJson(res, 400, difyError(400, 'invalid_param', 'conversation_id is not a valid uuid'));
      if (state.conversations.get(body.conversation_id) !== body.user) return sendJson(res, 404, difyError(404, 'not_found', 'Conversation Not Exists.'));
      conversationId = body.conversation_id;
    } else {
      conversationId = randomUUID();
      state.conversations.set(conversationId, body.user);
    }
  }
  const taskId = randomUUID();
  state.tasks.set(taskId, body.user);
  const messageId = randomUUID();
  const created = Math.floor(Date.now() / 1000);
  const usage = {
    prompt_tokens: exchange.usage?.inputTokens ?? 0,
    prompt_unit_price: '0.001',
    prompt_price_unit: '0.001',
    prompt_price: '0.0000110',
    completion_tokens: exchange.usage?.outputTokens ?? 0,
    completion_unit_price: '0.002',
    completion_price_unit: '0.001',
    completion_price: '0.0000140',
    total_tokens: (exchange.usage?.inputTokens ?? 0) + (exchange.usage?.outputTokens ?? 0),
    total_price: '0.0000250',
    currency: 'USD',
    latency: 0.42,
  };
  const workflowRunId = randomUUID();

  if (!streaming) {
    if (behaviour.malformed) return sendMalformedJson(res);
    if (isWorkflow) {
      return sendJson(res, 200, {
        workflow_run_id: workflowRunId,
        task_id: taskId,
        data: workflowData(workflowRunId, app, exchange.text, usage.total_tokens),
      });
    }
    return sendJson(res, 200, {
      event: 'message',
      task_id: taskId,
      id: messageId,
      message_id: messageId,
      conversation_id: conversationId,
      mode: isChat ? 'chat' : 'completion',
      answer: exchange.text,
      metadata: { usage, retriever_resources: [] },
      created_at: created,
    });
  }

  const frame = (event: object) => `data: ${JSON.stringify(event)}\n\n`;
  const frames: StreamFrame[] = [];
  if (app.script) {
    for (const event of app.script) {
      const ids: Record<string, unknown> = { task_id: taskId };
      if ('message_id' in event) ids.message_id = messageId;
      if ('conversation_id' in event) ids.conversation_id = conversationId;
      if ('workflow_run_id' in event) ids.workflow_run_id = workflowRunId;
      const isText = ['message', 'agent_message', 'text_chunk'].includes(String(event.event));
      frames.push({ frame: frame({ ...event, ...ids }), text: isText });
    }
    return sendEventStream(exchange, frames);
  }
  if (behaviour.malformed) frames.push({ frame: 'data: {"event": oops\n\n' });
  frames.push({ frame: 'event: ping\n\n' });
  const chunks = behaviour.chunks(exchange.text);
  const errorEvent = {
    event: 'error',
    task_id: taskId,
    message_id: messageId,
    status: 400,
    code: 'completion_request_error',
    message: 'The model failed mid-answer.',
  };
  if (isWorkflow) {
    frames.push({
      frame: frame({
        event: 'workflow_started',
        task_id: taskId,
        workflow_run_id: workflowRunId,
        data: { id: workflowRunId, workflow_id: 'wf', created_at: created },
      }),
    });
    frames.push({
      frame: frame({
        event: 'node_started',
        task_id: taskId,
        workflow_run_id: workflowRunId,
        data: { id: randomUUID(), node_id: 'llm', node_type: 'llm', title: 'LLM' },
      }),
    });
    for (const [index, text] of chunks.entries()) {
      if (app.errorEventAfterChunks !== null && index === app.errorEventAfterChunks) {
        frames.push({ frame: frame({ ...errorEvent, code: 'workflow_request_error' }) });
        return sendEventStream(exchange, frames);
      }
      frames.push({
        frame: frame({ event: 'text_chunk', task_id: taskId, workflow_run_id: workflowRunId, data: { text, from_variable_selector: ['llm', 'text'] } }),
        text: true,
      });
    }
    frames.push({
      frame: frame({
        event: 'node_finished',
        task_id: taskId,
        workflow_run_id: workflowRunId,
        data: { id: randomUUID(), node_id: 'llm', status: 'succeeded' },
      }),
    });
    frames.push({
      frame: frame({
        event: 'workflow_finished',
        task_id: taskId,
        workflow_run_id: workflowRunId,
        data: workflowData(workflowRunId, app, exchange.text, usage.total_tokens),
      }),
    });
    return sendEventStream(exchange, frames);
  }
  const textEvent = app.mode === 'agent-chat' ? 'agent_message' : 'message';
  if (app.mode === 'agent-chat') {
    frames.push({
      frame: frame({
        event: 'agent_thought',
        id: randomUUID(),
        task_id: taskId,
        message_id: messageId,
        position: 1,
        thought: '',
        tool: '',
        created_at: created,
      }),
    });
  }
  for (const [index, text] of chunks.entries()) {
    if (app.errorEventAfterChunks !== null && index === app.errorEventAfterChunks) {
      frames.push({ frame: frame(errorEvent) });
      return sendEventStream(exchange, frames);
    }
    frames.push({
      frame: frame({ event: textEvent, task_id: taskId, message_id: messageId, conversation_id: conversationId, answer: text, created_at: created }),
      text: true,
    });
    if (index === 0) {
      for (const extra of app.extraEvents)
        frames.push({ frame: frame({ ...extra, task_id: taskId, message_id: messageId, ...(isChat ? { conversation_id: conversationId } : {}) }) });
    }
  }
  frames.push({
    frame: frame({
      event: 'message_end',
      task_id: taskId,
      id: messageId,
      message_id: messageId,
      conversation_id: conversationId,
      metadata: { usage, retriever_resources: [] },
    }),
  });
  return sendEventStream(exchange, frames);
}

function workflowData(id: string, app: DifyFakeApp, text: string, totalTokens: number) {
  const succeeded = app.workflowStatus === 'succeeded';
  return {
    id,
    workflow_id: 'wf',
    status: app.workflowStatus,
    outputs: succeeded ? { text } : {},
    error: succeeded ? null : 'The workflow failed on purpose.',
    elapsed_time: 0.5,
    total_tokens: totalTokens,
    total_steps: 3,
    created_at: Math.floor(Date.now() / 1000),
    finished_at: Math.floor(Date.now() / 1000),
  };
}

/** The inputs a recorded Dify call carried. */
export const difyBody = (request: RecordedRequest) =>
  request.body as { inputs: Record<string, unknown>; query?: string; user: string; conversation_id?: string; files?: unknown[] };
