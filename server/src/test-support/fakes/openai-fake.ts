// A loopback fake of OpenAI Chat Completions (POST /v1/chat/completions), blocking and streaming
// (chat.completion.chunk events, the include_usage chunk with empty choices, then [DONE]).
// Also stands in for any OpenAI-compatible server (Ollama, vLLM, OpenRouter).
import { randomUUID } from 'node:crypto';
import type { FakeExchange, FakeProviderServer, StreamFrame } from './http-fake.ts';
import { exampleFromSchema, header, sendEventStream, sendJson, sendMalformedJson, startFakeServer } from './http-fake.ts';

export interface OpenAIFakeOptions {
  /** When set, requests without "Authorization: Bearer <apiKey>" get OpenAI's 401. */
  apiKey?: string;
  /** The port to listen on (127.0.0.1); any free one by default. */
  port?: number;
}

/** baseUrl ends in /v1, like OPENAI_BASE_URL. */
export function startOpenAIFake(options: OpenAIFakeOptions = {}): Promise<FakeProviderServer> {
  return startFakeServer((exchange) => answer(exchange, options), '/v1', options.port ?? 0);
}

function answer(exchange: FakeExchange, options: OpenAIFakeOptions): Promise<void> | void {
  const { request, behaviour, res } = exchange;
  if (request.method !== 'POST' || request.path !== '/v1/chat/completions') {
    return sendJson(res, 404, openAIError(`Unknown request URL: ${request.method} ${request.path}`, 'invalid_request_error', 'unknown_url'));
  }
  if (options.apiKey !== undefined && header(request, 'authorization') !== `Bearer ${options.apiKey}`) {
    return sendJson(res, 401, openAIError('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));
  }
  if (behaviour.status !== 200) return sendJson(res, behaviour.status, openAIError(behaviour.errorMessage, 'server_error', null));
  const body = (request.body ?? {}) as OpenAIRequestBody;
  const model = body.model ?? 'unknown';
  const toolCall = behaviour.callTools ? toolCallFor(body) : null;
  const schema = body.response_format?.type === 'json_schema' ? body.response_format.json_schema?.schema : undefined;
  if (behaviour.json && schema) exchange.text = JSON.stringify(exampleFromSchema(schema));
  else if (behaviour.json && body.response_format?.type === 'json_object') exchange.text = JSON.stringify({ answer: exchange.text });
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const usage = exchange.usage && {
    prompt_tokens: exchange.usage.inputTokens,
    completion_tokens: exchange.usage.outputTokens,
    total_tokens: exchange.usage.inputTokens + exchange.usage.outputTokens,
    ...(exchange.usage.cachedInputTokens ? { prompt_tokens_details: { cached_tokens: exchange.usage.cachedInputTokens } } : {}),
  };

  if (body.stream !== true) {
    if (behaviour.malformed) return sendMalformedJson(res);
    const message = toolCall
      ? {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [{ id: toolCall.id, type: 'function', function: { name: toolCall.name, arguments: toolCall.arguments } }],
        }
      : { role: 'assistant', content: exchange.text, refusal: null };
    return sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: toolCall ? 'tool_calls' : 'stop' }],
      ...(usage ? { usage } : {}),
    });
  }

  const includeUsage = body.stream_options?.include_usage === true;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): string =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...(includeUsage ? { usage: null } : {}), ...extra })}\n\n`;
  const frames: StreamFrame[] = [];
  if (behaviour.malformed) frames.push({ frame: 'data: {"choices": [oops\n\n' });
  frames.push({ frame: chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]) });
  if (toolCall) {
    // As OpenAI streams a call: the id, type and name first, then the arguments in pieces.
    const first = { index: 0, id: toolCall.id, type: 'function', function: { name: toolCall.name, arguments: '' } };
    frames.push({ frame: chunk([{ index: 0, delta: { tool_calls: [first] }, logprobs: null, finish_reason: null }]), text: true });
    for (const piece of splitArguments(toolCall.arguments)) {
      frames.push({
        frame: chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] }, logprobs: null, finish_reason: null }]),
        text: true,
      });
    }
  } else {
    for (const text of behaviour.chunks(exchange.text)) {
      frames.push({ frame: chunk([{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }]), text: true });
    }
  }
  frames.push({ frame: chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: toolCall ? 'tool_calls' : 'stop' }]) });
  if (includeUsage && usage) frames.push({ frame: chunk([], { usage }) });
  frames.push({ frame: 'data: [DONE]\n\n' });
  return sendEventStream(exchange, frames);
}

interface OpenAIRequestBody {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: { role?: string }[];
  response_format?: { type?: string; json_schema?: { schema?: object } };
  tools?: { type?: string; function?: { name?: string; parameters?: object } }[];
  tool_choice?: string | { function?: { name?: string } };
}

/** The tool call a model would make: none after a tool's result, with tool_choice "none", or without tools. */
function toolCallFor(body: OpenAIRequestBody): { id: string; name: string; arguments: string } | null {
  if (!body.tools?.length || body.tool_choice === 'none' || body.messages?.at(-1)?.role === 'tool') return null;
  const named = typeof body.tool_choice === 'object' ? body.tool_choice.function?.name : undefined;
  const tool = body.tools.find((candidate) => candidate.function?.name === named) ?? body.tools[0]!;
  return {
    id: `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    name: tool.function?.name ?? 'tool',
    arguments: JSON.stringify(exampleFromSchema(tool.function?.parameters ?? {})),
  };
}

function splitArguments(text: string): string[] {
  const pieces: string[] = [];
  for (let index = 0; index < text.length; index += 8) pieces.push(text.slice(index, index + 8));
  return pieces.length > 0 ? pieces : [''];
}

function openAIError(message: string, type: string, code: string | null) {
  return { error: { message, type, param: null, code } };
}
