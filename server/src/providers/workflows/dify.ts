// Dify's Service API (../shared/providers/dify-api.md): the creator's app key, the app's mode from
// GET /info deciding the endpoint (chat-like apps: /chat-messages; completion: /completion-messages;
// workflow: /workflows/run with its outputs as the answer). Agent apps cannot answer blocking, so a
// blocking call to one is streamed upstream and gathered here. Every connection goes through
// safe-http (SSRF rule, no redirects).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { isDifyChatMode } from '@tollbooth/contract';
import { AppError, type ErrorCode } from '../../platform/errors.ts';
import type { CallerSignal } from '../abort-hook.ts';
import { readServerSentEvents } from '../sse.ts';
import { HOP_HEADER, isRecord, redactSecrets, tokenCount } from '../upstream.ts';
import { difyEventCarriesAnswer } from './dify-answer-events.ts';
import { BlockedAddressError, parseProviderUrl, readText, safeRequest } from './safe-http.ts';
import type { ProviderSettings, WorkflowAppInfo, WorkflowCallRequest, WorkflowProvider, WorkflowResult, WorkflowStreamEvent, WorkflowUsage } from './types.ts';

export const DIFY_DEFAULT_BASE_URL = 'https://api.dify.ai/v1';
const CHECK_TIMEOUT_MS = 15_000;

/** Whether a Dify app holds a conversation: the contract's rule (one list of chat modes everywhere). */
export const isChatMode = isDifyChatMode;

/** One upstream exchange under way: its response, and how to end it and explain its failures. */
interface Upstream {
  response: IncomingMessage;
  /** Clears the deadline and the caller's abort listener. */
  done: () => void;
  timedOut: () => boolean;
  /** The error to throw for whatever reading the body threw, given why the exchange ended. */
  failure: (error: unknown) => Error;
}

interface DifyOptions {
  allowPrivate: boolean;
}

/** Dify's error body {code, message, status} mapped to ours; the creator's key is never repeated. */
function mapDifyError(status: number, body: string, key: string): AppError {
  let code = '';
  let message = body;
  try {
    const parsed = JSON.parse(body) as { code?: unknown; message?: unknown };
    if (typeof parsed.code === 'string') code = parsed.code;
    if (typeof parsed.message === 'string') message = parsed.message;
  } catch {
    // Not JSON (a proxy's error page): keep the start of it.
  }
  message = redactSecrets(message.replace(/\s+/g, ' ').trim(), [key]).slice(0, 300) || `HTTP ${status}`;
  return difyError(status, code, message);
}

function difyError(status: number, code: string, message: string): AppError {
  const make = (ourCode: ErrorCode, text: string, errorType?: string) => new AppError(ourCode, text, undefined, undefined, errorType);
  if (status === 401 || status === 403 || code === 'unauthorized' || code === 'forbidden')
    return make('provider_auth_failed', `Dify refused the app's API key (${status}${code ? ` ${code}` : ''}): ${message}`);
  if (code === 'provider_quota_exceeded' || code === 'quota_exceeded')
    return make('provider_quota_exceeded', `The Dify app's model quota is exhausted: ${message}`);
  if (status === 404 && /conversation/i.test(message)) return new AppError('not_found', 'Conversation Not Exists.', 'conversation_id');
  if (status === 400 && code === 'invalid_param') return new AppError('invalid_param', `Dify rejected the request: ${message}`, 'inputs');
  if (status === 429 || code === 'rate_limit_error' || code === 'too_many_requests')
    return make('provider_error', `Dify is rate limiting the app: ${message}`, 'provider_rate_limited');
  if (code === 'app_unavailable' || code === 'not_chat_app' || code === 'not_completion_app' || code === 'not_workflow_app')
    return make('provider_error', `The Dify app cannot answer this call (${code}): ${message}`, 'provider_app_mismatch');
  return make('provider_error', `Dify answered ${status}${code ? ` ${code}` : ''}: ${message}`);
}

/** The answer of a workflow-mode app: its one text output, an "answer"/"text"/"result" output, or all outputs as JSON. */
export function workflowOutputsToAnswer(outputs: unknown): string {
  if (!isRecord(outputs)) return '';
  const values = Object.values(outputs);
  if (values.length === 1 && typeof values[0] === 'string') return values[0];
  for (const name of ['answer', 'text', 'result', 'output']) if (typeof outputs[name] === 'string') return outputs[name] as string;
  return JSON.stringify(outputs);
}

function usageFrom(value: unknown): WorkflowUsage {
  if (!isRecord(value)) return { inputTokens: 0, outputTokens: 0 };
  return { inputTokens: tokenCount(value.prompt_tokens) ?? 0, outputTokens: tokenCount(value.completion_tokens) ?? 0 };
}

function normalizeForm(form: unknown): WorkflowAppInfo['user_input_form'] {
  if (!Array.isArray(form)) return [];
  return form.filter(
    (entry) => isRecord(entry) && Object.values(entry).every((field) => isRecord(field) && typeof field.variable === 'string'),
  ) as WorkflowAppInfo['user_input_form'];
}

export function createDifyProvider({ allowPrivate }: DifyOptions): WorkflowProvider {
  /** One deadline-bound exchange with Dify; the answer when it is 2xx, else the mapped error. */
  const exchange = async (
    settings: ProviderSettings,
    method: 'GET' | 'POST',
    path: string,
    options: { body?: Buffer | string; contentType?: string; signal: CallerSignal; timeoutMs: number; label: string; hop: string; traceparent?: string },
  ): Promise<Upstream> => {
    const base = parseProviderUrl(settings.base_url || DIFY_DEFAULT_BASE_URL);
    const url = new URL(`${base.href.replace(/\/+$/, '')}${path}`);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException('deadline', 'TimeoutError'));
    }, options.timeoutMs);
    const onCallerAbort = () => controller.abort(options.signal.reason);
    if (options.signal.aborted) onCallerAbort();
    else options.signal.addEventListener('abort', onCallerAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onCallerAbort);
    };
    const failure = (error: unknown): Error => {
      done();
      if (timedOut) return new AppError('provider_timeout', `Dify did not answer within ${Math.round(options.timeoutMs / 1000)} s`);
      if (options.signal.aborted) return Object.assign(new Error('The caller aborted the Dify request'), { name: 'AbortError' });
      if (error instanceof AppError) return error;
      const code = (error as { code?: string }).code;
      return new AppError('provider_error', `Could not reach Dify at ${url.origin}${code ? ` (${code})` : ''}`, undefined, undefined, 'provider_unreachable');
    };
    let response: IncomingMessage;
    try {
      response = await safeRequest({
        url,
        method,
        headers: {
          authorization: `Bearer ${settings.api_key ?? ''}`,
          accept: 'application/json, text/event-stream',
          // The chain of Tollbooth calls this one belongs to, so a call that comes back is refused.
          [HOP_HEADER]: options.hop,
          ...(options.contentType ? { 'content-type': options.contentType } : {}),
          ...(options.traceparent ? { traceparent: options.traceparent } : {}),
        },
        body: options.body,
        signal: controller.signal,
        allowPrivate,
      });
    } catch (error) {
      if (error instanceof BlockedAddressError) {
        done();
        throw error;
      }
      throw failure(error);
    }
    const status = response.statusCode ?? 0;
    if (status >= 300) {
      let text = '';
      try {
        text = await readText(response, 64 * 1024);
      } catch (error) {
        throw failure(error);
      }
      done();
      if (status < 400) throw new AppError('provider_error', `Dify answered a redirect (${status}), which is not followed`);
      throw mapDifyError(status, text, settings.api_key ?? '');
    }
    // Errors while reading the body later are mapped by the caller through the same rules.
    response.on('error', () => {});
    return { response, done, timedOut: () => timedOut, failure };
  };

  const readJson = async (settings: ProviderSettings, path: string, signal: AbortSignal, label: string, hop: string): Promise<Record<string, unknown>> => {
    const upstream = await exchange(settings, 'GET', path, { signal, timeoutMs: CHECK_TIMEOUT_MS, label, hop });
    try {
      const text = await readText(upstream.response);
      const parsed = JSON.parse(text) as unknown;
      if (!isRecord(parsed)) throw new Error('not an object');
      return parsed;
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw upstream.failure(
        error instanceof SyntaxError || (error as Error).message === 'not an object'
          ? new AppError('provider_error', `Dify's ${label} answer is not JSON`)
          : error,
      );
    } finally {
      upstream.done();
    }
  };

  const endpointFor = (mode: string) => (isChatMode(mode) ? '/chat-messages' : mode === 'workflow' ? '/workflows/run' : '/completion-messages');

  const bodyFor = (request: WorkflowCallRequest, responseMode: 'blocking' | 'streaming') => ({
    inputs: request.inputs,
    response_mode: responseMode,
    user: request.user,
    files: request.files,
    ...(isChatMode(request.appMode) ? { query: request.query ?? '', conversation_id: request.conversationId ?? '', auto_generate_name: false } : {}),
  });

  /** The call itself: POST to its mode's endpoint, blocking or streaming. */
  const postCall = (request: WorkflowCallRequest, responseMode: 'blocking' | 'streaming') =>
    exchange(request.settings, 'POST', endpointFor(request.appMode), {
      body: JSON.stringify(bodyFor(request, responseMode)),
      contentType: 'application/json',
      signal: request.signal,
      timeoutMs: request.timeoutMs,
      label: 'call',
      hop: request.hop,
      traceparent: request.traceparent,
    });

  /** POST …/{task_id}/stop with the task's user (Dify only stops a task for the user who started it). */
  async function stopTask(settings: ProviderSettings, appMode: string, taskId: string, user: string, hop: string): Promise<void> {
    const path = appMode === 'workflow' ? `/workflows/tasks/${encodeURIComponent(taskId)}/stop` : `${endpointFor(appMode)}/${encodeURIComponent(taskId)}/stop`;
    const upstream = await exchange(settings, 'POST', path, {
      body: JSON.stringify({ user }),
      contentType: 'application/json',
      signal: new AbortController().signal,
      timeoutMs: CHECK_TIMEOUT_MS,
      label: 'stop',
      hop,
    });
    try {
      await readText(upstream.response, 64 * 1024);
    } finally {
      upstream.done();
    }
  }

  async function* streamEvents(request: WorkflowCallRequest): AsyncGenerator<WorkflowStreamEvent> {
    const upstream = await postCall(request, 'streaming');
    const fail = upstream.failure;
    const isWorkflow = request.appMode === 'workflow';
    let sentText = false;
    let taskId: string | null = null;
    /** Dify ended the task itself (message_end, workflow_finished or an error event): nothing to stop. */
    let ended = false;
    let conversationId: string | null = request.conversationId;
    let finished = false;
    try {
      const body = Readable.toWeb(upstream.response) as ReadableStream<Uint8Array>;
      for await (const sse of readServerSentEvents(body)) {
        if (sse.event === 'ping' || sse.data.trim() === '') continue;
        let event: Record<string, unknown>;
        try {
          const parsed = JSON.parse(sse.data) as unknown;
          if (!isRecord(parsed)) throw new Error();
          event = parsed;
        } catch {
          throw new AppError('provider_error', 'Dify sent a stream event that is not JSON');
        }
        if (taskId === null && typeof event.task_id === 'string' && event.task_id) {
          taskId = event.task_id;
          yield { type: 'task', taskId };
        }
        if (typeof event.conversation_id === 'string' && event.conversation_id) conversationId = event.conversation_id;
        switch (event.event) {
          case 'message':
          case 'agent_message':
          case 'text_chunk': {
            const text = event.event === 'text_chunk' ? (isRecord(event.data) ? event.data.text : '') : event.answer;
            if (typeof text === 'string' && text !== '') {
              sentText = true;
              yield { type: 'delta', text };
            }
            break;
          }
          case 'message_end':
            ended = true;
            if (!isWorkflow) {
              finished = true;
              yield { type: 'done', usage: usageFrom(isRecord(event.metadata) ? event.metadata.usage : null), conversationId };
            }
            break;
          case 'workflow_finished': {
            ended = true;
            const data = isRecord(event.data) ? event.data : {};
            if (data.status !== 'succeeded') {
              throw new AppError(
                'provider_error',
                `The Dify workflow ${String(data.status ?? 'failed')}: ${String(data.error ?? 'no reason given')}`,
                undefined,
                undefined,
                'provider_workflow_failed',
              );
            }
            yield { type: 'event', event, answer: difyEventCarriesAnswer(event) };
            if (isWorkflow) {
              if (!sentText) {
                const answer = workflowOutputsToAnswer(data.outputs);
                if (answer) yield { type: 'delta', text: answer };
              }
              finished = true;
              yield { type: 'done', usage: { inputTokens: 0, outputTokens: tokenCount(data.total_tokens) ?? 0 }, conversationId: null };
            }
            break;
          }
          case 'error': {
            ended = true;
            throw difyError(
              typeof event.status === 'number' ? event.status : 500,
              typeof event.code === 'string' ? event.code : '',
              redactSecrets(typeof event.message === 'string' ? event.message : 'Dify reported an error', [request.settings.api_key]),
            );
          }
          default:
            // agent_thought, message_file, message_replace, tts_message, workflow_started, node_*…
            if (typeof event.event === 'string' && event.event) yield { type: 'event', event, answer: difyEventCarriesAnswer(event) };
            break;
        }
        if (finished) return;
      }
      throw new AppError('provider_error', 'The Dify stream ended before the answer was complete', undefined, undefined, 'provider_stream_cut');
    } catch (error) {
      if (error instanceof AppError && !upstream.timedOut() && !request.signal.aborted) throw error;
      throw fail(error);
    } finally {
      upstream.done();
      // Stops reading; a body not read to the end is destroyed, which aborts the upstream request.
      if (!upstream.response.complete) upstream.response.destroy();
      // Dify keeps running a task whose client went away (and bills the creator's model account):
      // ask it to stop whenever the answer ended here before Dify ended it (caller gone, deadline,
      // consumer stopped reading, cut stream). Best effort, not awaited.
      if (!ended && taskId !== null) {
        stopTask(request.settings, request.appMode, taskId, request.user, request.hop).catch(() => {});
      }
    }
  }

  const gather = async (request: WorkflowCallRequest): Promise<WorkflowResult> => {
    let answer = '';
    let taskId: string | null = null;
    for await (const event of streamEvents(request)) {
      if (event.type === 'delta') answer += event.text;
      else if (event.type === 'task') taskId = event.taskId;
      else if (event.type === 'event') {
        // Dify's moderation replaces the whole answer so far.
        if (event.event.event === 'message_replace' && typeof event.event.answer === 'string') answer = event.event.answer;
      } else return { answer, usage: event.usage, conversationId: event.conversationId, taskId };
    }
    throw new AppError('provider_error', 'The Dify stream ended before the answer was complete');
  };

  return {
    id: 'dify',
    slug: 'dify',
    name: 'Dify',
    description: 'Any Dify app (chatbot, chatflow, agent, text generator or workflow) on Dify Cloud or a self-hosted Dify, through its Service API.',
    configSchema: {
      type: 'object',
      properties: {
        base_url: {
          title: 'API Base URL',
          description: 'The Service API base URL of your Dify; https://api.dify.ai/v1 for Dify Cloud, https://your-dify/v1 when self-hosted.',
          type: 'string',
          default: DIFY_DEFAULT_BASE_URL,
        },
        api_key: { title: 'API Key', description: "The app's API key (Dify: the app's API Access page, app-…).", type: 'string', secret: true },
        app_id: { title: 'App ID', description: 'The Dify app id, to tell your apps apart.', type: 'string' },
      },
      required: ['base_url', 'api_key', 'app_id'],
    },

    async checkConfiguration(settings, signal, hop) {
      const info = await readJson(settings, '/info', signal, 'info', hop);
      const parameters = await readJson(settings, '/parameters', signal, 'parameters', hop);
      return {
        name: typeof info.name === 'string' ? info.name : '',
        description: typeof info.description === 'string' ? info.description : '',
        // Older Dify answers /info without a mode; such versions only had chat and completion apps.
        mode: typeof info.mode === 'string' ? info.mode : 'chat',
        user_input_form: normalizeForm(parameters.user_input_form),
      };
    },

    async describeInputs(settings, signal, hop) {
      return normalizeForm((await readJson(settings, '/parameters', signal, 'parameters', hop)).user_input_form);
    },

    async callBlocking(request) {
      // Agent apps only stream; workflow apps are gathered from their stream too, so one reader maps
      // their events (text chunks, outputs, workflow_finished) for both response modes.
      if (request.appMode === 'agent-chat' || request.appMode === 'workflow') return gather(request);
      const upstream = await postCall(request, 'blocking');
      const fail = upstream.failure;
      let parsed: unknown;
      try {
        parsed = JSON.parse(await readText(upstream.response));
      } catch (error) {
        throw fail(error instanceof SyntaxError ? new AppError('provider_error', 'The Dify answer is not JSON') : error);
      } finally {
        upstream.done();
      }
      if (!isRecord(parsed) || typeof parsed.answer !== 'string') throw new AppError('provider_error', 'The Dify answer has no answer text');
      return {
        answer: parsed.answer,
        usage: usageFrom(isRecord(parsed.metadata) ? parsed.metadata.usage : null),
        conversationId: typeof parsed.conversation_id === 'string' && parsed.conversation_id ? parsed.conversation_id : null,
        taskId: typeof parsed.task_id === 'string' ? parsed.task_id : null,
      };
    },

    callStreaming: streamEvents,

    stop: stopTask,

    async uploadFile(settings, file, user, signal, hop) {
      const boundary = `----tollbooth${randomUUID().replace(/-/g, '')}`;
      const safeName = file.name.replace(/["\r\n]/g, '_');
      const body = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\ncontent-disposition: form-data; name="user"\r\n\r\n${user}\r\n` +
            `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${safeName}"\r\ncontent-type: ${file.mimeType}\r\n\r\n`,
        ),
        file.data,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const upstream = await exchange(settings, 'POST', '/files/upload', {
        body,
        contentType: `multipart/form-data; boundary=${boundary}`,
        signal,
        timeoutMs: CHECK_TIMEOUT_MS * 4,
        label: 'upload',
        hop,
      });
      try {
        const parsed = JSON.parse(await readText(upstream.response)) as unknown;
        if (!isRecord(parsed) || typeof parsed.id !== 'string') throw new AppError('provider_error', 'Dify did not return the uploaded file id');
        return parsed.id;
      } catch (error) {
        if (error instanceof AppError) throw error;
        throw new AppError('provider_error', 'The Dify upload answer is not JSON');
      } finally {
        upstream.done();
      }
    },
  };
}
