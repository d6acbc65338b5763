// A loopback fake of the Anthropic Messages API (POST /v1/messages), blocking and streaming
// (message_start, content_block_start, ping, content_block_delta…, content_block_stop,
// message_delta with the output usage, message_stop). Checks the headers and max_tokens the real
// API requires.
import { randomUUID } from 'node:crypto';
import type { FakeExchange, FakeProviderServer, StreamFrame } from './http-fake.ts';
import { exampleFromSchema, header, sendEventStream, sendJson, sendMalformedJson, startFakeServer } from './http-fake.ts';

export interface AnthropicFakeOptions {
  /** When set, requests without "x-api-key: <apiKey>" get Anthropic's 401. */
  apiKey?: string;
}

/** baseUrl is the origin, like https://api.anthropic.com. */
export function startAnthropicFake(options: AnthropicFakeOptions = {}): Promise<FakeProviderServer> {
  return startFakeServer((exchange) => answer(exchange, options));
}

function answer(exchange: FakeExchange, options: AnthropicFakeOptions): Promise<void> | void {
  const { request, behaviour, res } = exchange;
  if (request.method !== 'POST' || request.path !== '/v1/messages') return sendJson(res, 404, anthropicError('not_found_error', 'Not found'));
  if (options.apiKey !== undefined && header(request, 'x-api-key') !== options.apiKey) {
    return sendJson(res, 401, anthropicError('authentication_error', 'invalid x-api-key'));
  }
  if (!header(request, 'anthropic-version')) return sendJson(res, 400, anthropicError('invalid_request_error', 'anthropic-version: header is required'));
  const body = (request.body ?? {}) as {
    model?: string;
    stream?: boolean;
    max_tokens?: unknown;
    tools?: { name?: string; input_schema?: object }[];
    tool_choice?: { type?: string; name?: string };
    messages?: { role?: string; content?: unknown }[];
  };
  if (typeof body.max_tokens !== 'number') return sendJson(res, 400, anthropicError('invalid_request_error', 'max_tokens: Field required'));
  if (behaviour.status !== 200) return sendJson(res, behaviour.status, anthropicError('api_error', behaviour.errorMessage));
  const model = body.model ?? 'unknown';
  const id = `msg_${randomUUID().replaceAll('-', '')}`;
  const usage = exchange.usage ?? { inputTokens: 0, outputTokens: 0 };
  // Claude calls a tool it is offered, unless it is answering a tool's result or told not to.
  const last = body.messages?.at(-1);
  const answersToolResult = Array.isArray(last?.content) && last.content.some((block) => (block as { type?: string }).type === 'tool_result');
  const tool =
    behaviour.callTools && body.tools?.length && !answersToolResult && body.tool_choice?.type !== 'none'
      ? (body.tools.find((candidate) => candidate.name === body.tool_choice?.name) ?? body.tools[0]!)
      : null;
  const toolUse = tool
    ? {
        type: 'tool_use',
        id: `toolu_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
        name: tool.name ?? 'tool',
        input: exampleFromSchema(tool.input_schema ?? {}),
      }
    : null;

  if (body.stream !== true) {
    if (behaviour.malformed) return sendMalformedJson(res);
    return sendJson(res, 200, {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: toolUse ? [toolUse] : [{ type: 'text', text: exchange.text }],
      stop_reason: toolUse ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
    });
  }

  const event = (name: string, data: unknown): string => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  const frames: StreamFrame[] = [];
  if (behaviour.malformed) frames.push({ frame: 'event: message_start\ndata: {"type": "message_start", oops\n\n' });
  frames.push({
    frame: event('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.inputTokens, output_tokens: 1 },
      },
    }),
  });
  if (toolUse) {
    frames.push({ frame: event('content_block_start', { type: 'content_block_start', index: 0, content_block: { ...toolUse, input: {} } }) });
    const json = JSON.stringify(toolUse.input);
    for (let at = 0; at < json.length; at += 8) {
      frames.push({
        frame: event('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: json.slice(at, at + 8) },
        }),
        text: true,
      });
    }
  } else {
    frames.push({ frame: event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) });
    frames.push({ frame: event('ping', { type: 'ping' }) });
    for (const text of behaviour.chunks(exchange.text)) {
      frames.push({ frame: event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }), text: true });
    }
  }
  frames.push({ frame: event('content_block_stop', { type: 'content_block_stop', index: 0 }) });
  frames.push({
    frame: event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: toolUse ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: usage.outputTokens },
    }),
  });
  frames.push({ frame: event('message_stop', { type: 'message_stop' }) });
  return sendEventStream(exchange, frames);
}

function anthropicError(type: string, message: string) {
  return { type: 'error', error: { type, message } };
}
