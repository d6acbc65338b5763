// A variant of the API client for the paid call endpoints: the caller chooses the bearer (a pasted
// API key or the session's access token) and a streamed answer is read frame by frame. Failures
// become the same ApiError as everywhere else, so one message rule applies.
import { apiFetch } from '@/lib/api-client';
import { ApiError } from '@/lib/errors';
import { readServerSentEvents } from '../lib/server-sent-events';
import type { ChatBody, CompletionBody, GatewayAction, GatewayAnswer, GatewayCallOptions, GatewayUsage } from './gateway-types';

export const STREAM_INCOMPLETE_MESSAGE = 'The response stream ended before the answer was complete';

export function gatewayPath(slug: string, action: GatewayAction): string {
  return `/app/${encodeURIComponent(slug)}/${action}`;
}

interface StreamFrame {
  event?: string;
  answer?: string;
  id?: string;
  task_id?: string;
  message_id?: string;
  conversation_id?: string;
  created_at?: number;
  metadata?: { usage?: GatewayUsage };
  status?: number;
  code?: string;
  message?: string;
}

/** What a message_end without usage counts as (the server always sends it). */
const NO_USAGE: GatewayUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, input_tokens: 0, output_tokens: 0, latency: 0 };

/** Puts a streamed answer together: `message` chunks, then `message_end` with the usage, or `error`. */
async function readStreamedAnswer(body: ReadableStream<Uint8Array>, action: GatewayAction, onAnswer?: (answer: string) => void): Promise<GatewayAnswer> {
  let answer = '';
  let createdAt = Math.floor(Date.now() / 1000);
  for await (const event of readServerSentEvents(body)) {
    // Keep-alive frames (`event: ping`) carry no data.
    if ((event.event !== undefined && event.event !== 'message') || event.data === '') continue;
    let frame: StreamFrame;
    try {
      frame = JSON.parse(event.data) as StreamFrame;
    } catch {
      continue;
    }
    if (frame.event === 'message') {
      answer += frame.answer ?? '';
      if (typeof frame.created_at === 'number') createdAt = frame.created_at;
      onAnswer?.(answer);
    } else if (frame.event === 'message_end') {
      const messageId = frame.message_id ?? frame.id ?? '';
      return {
        event: 'message',
        task_id: frame.task_id ?? '',
        id: frame.id ?? messageId,
        message_id: messageId,
        conversation_id: frame.conversation_id ?? '',
        mode: action === 'chat-messages' ? 'chat' : 'completion',
        answer,
        metadata: { usage: frame.metadata?.usage ?? NO_USAGE },
        created_at: createdAt,
      };
    } else if (frame.event === 'error') {
      const status = typeof frame.status === 'number' ? frame.status : 500;
      throw new ApiError(status, frame, `Request failed with status ${status}`);
    }
  }
  throw new Error(STREAM_INCOMPLETE_MESSAGE);
}

/** POST /api/app/{slug}/{completion,chat}-messages with response_mode blocking or streaming. */
export async function postGatewayMessage(
  slug: string,
  action: GatewayAction,
  body: CompletionBody | ChatBody,
  { bearer, stream, onAnswer, signal }: GatewayCallOptions,
): Promise<GatewayAnswer> {
  const response = await apiFetch(gatewayPath(slug, action), {
    method: 'POST',
    headers: { Accept: stream ? 'text/event-stream' : 'application/json', 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...body, response_mode: stream ? 'streaming' : 'blocking' }),
    bearer: bearer ?? null,
    signal,
  });
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('text/event-stream') && response.body) return readStreamedAnswer(response.body, action, onAnswer);
  return (await response.json()) as GatewayAnswer;
}
