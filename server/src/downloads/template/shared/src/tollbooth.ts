// Calls this app's endpoint through the local server (server.js adds the API key) and reads the
// streamed answer: Server-Sent Events in Dify's format, `message` chunks then `message_end` with
// token usage, or an `error` event.

export interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  /** What this call cost, in dollars (a decimal string, e.g. "0.0051200"). */
  total_price?: string;
}

export interface CallResult {
  answer: string;
  conversationId: string;
  usage: Usage | null;
}

export interface CallRequest {
  inputs: Record<string, unknown>;
  /** Chat apps: the user's message. */
  query?: string;
  /** Chat apps: continue this conversation; empty starts a new one. */
  conversationId?: string;
}

/** A failure, already put into words for the person using the app. */
export class CallError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'CallError';
  }
}

interface ErrorBody {
  code?: string;
  message?: string;
}

/** The user's id for the creator's analytics: random, kept in this browser. */
function endUserId() {
  let id = localStorage.getItem('end-user-id');
  if (!id) {
    id = crypto.randomUUID();
    localStorage.setItem('end-user-id', id);
  }
  return id;
}

export function describeError(status: number, body: ErrorBody, retryAfterSeconds: number | null): string {
  const detail = body.message ? ` (${body.message})` : '';
  if (body.code === 'tollbooth_unreachable') return 'Could not reach Tollbooth. Check TOLLBOOTH_URL in .env and your connection, then try again.';
  switch (status) {
    case 400:
      return `Please check your input: ${body.message ?? 'the request was not accepted.'}`;
    case 401:
      return 'Tollbooth refused the API key. Check TOLLBOOTH_API_KEY in .env and restart the server.';
    case 402:
      return body.code === 'key_limit_exceeded'
        ? 'This API key has reached its spending limit. Raise the limit or use another key.'
        : 'Out of credits: add credits to the Tollbooth account that owns the API key, then try again.';
    case 403:
    case 404:
      return `This app is not available right now: it may be a draft, private or archived${detail}.`;
    case 413:
      return 'That input is too large. Please shorten it.';
    case 429:
      return `Slow down: too many requests. Retry in ${retryAfterSeconds ?? 60} s.`;
    case 502:
      return `The AI provider could not answer. You were not charged; please try again${detail}.`;
    case 504:
      return 'The AI provider took too long to answer. You were not charged; please try again.';
    default:
      return body.message ? `Something went wrong: ${body.message}` : `Something went wrong (HTTP ${status}). Please try again.`;
  }
}

function retryAfter(response: Response): number | null {
  const value = response.headers.get('retry-after') ?? response.headers.get('ratelimit-reset');
  const seconds = value === null ? Number.NaN : Number(value);
  return Number.isFinite(seconds) ? Math.max(1, Math.ceil(seconds)) : null;
}

/**
 * Sends one call and streams the answer: `onText` gets the whole answer so far after every chunk.
 * Resolves with the answer, the conversation id and the token usage; throws a CallError.
 */
export async function callApp(kind: 'completion' | 'chat', request: CallRequest, onText: (answer: string) => void, signal?: AbortSignal): Promise<CallResult> {
  let response: Response;
  try {
    response = await fetch(`/api/${kind}-messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream, application/json' },
      body: JSON.stringify({
        inputs: request.inputs,
        ...(kind === 'chat' ? { query: request.query ?? '', conversation_id: request.conversationId ?? '' } : {}),
        response_mode: 'streaming',
        user: endUserId(),
      }),
      signal,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new CallError('Could not reach the app server. Is it still running?', 0);
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as ErrorBody;
    throw new CallError(describeError(response.status, body, retryAfter(response)), response.status);
  }

  const result: CallResult = { answer: '', conversationId: request.conversationId ?? '', usage: null };
  if (!response.headers.get('content-type')?.includes('text/event-stream')) {
    // A blocking answer (e.g. a replayed idempotent call).
    const body = (await response.json()) as { answer?: string; conversation_id?: string; metadata?: { usage?: Usage } };
    result.answer = body.answer ?? '';
    result.conversationId = body.conversation_id || result.conversationId;
    result.usage = body.metadata?.usage ?? null;
    onText(result.answer);
    return result;
  }

  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (!data) continue; // pings and comments
      const event = JSON.parse(data) as {
        event?: string;
        answer?: string;
        conversation_id?: string;
        status?: number;
        code?: string;
        message?: string;
        data?: { text?: string };
        metadata?: { usage?: Usage };
      };
      if (event.conversation_id) result.conversationId = event.conversation_id;
      switch (event.event) {
        case 'message':
        case 'agent_message':
          result.answer += event.answer ?? '';
          onText(result.answer);
          break;
        case 'text_chunk':
          result.answer += event.data?.text ?? '';
          onText(result.answer);
          break;
        case 'message_replace':
          result.answer = event.answer ?? '';
          onText(result.answer);
          break;
        case 'message_end':
          result.usage = event.metadata?.usage ?? null;
          break;
        case 'error':
          throw new CallError(describeError(event.status ?? 500, event, null), event.status ?? 500);
      }
    }
  }
  return result;
}
