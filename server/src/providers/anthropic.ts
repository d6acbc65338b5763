// Anthropic Messages API (POST {base}/v1/messages, x-api-key, anthropic-version 2023-06-01).
// The system prompt is the top-level `system`; max_tokens is required. Streaming is SSE with named
// events: message_start (input usage), content_block_delta (text_delta), message_delta
// (cumulative output usage), message_stop; ping is a keep-alive and error reports a failure.
// There is no native JSON-schema mode on this API version, so a schema is asked for by instruction.

import { AppError } from '../platform/errors.ts';
import { systemPrompt } from './json-output.ts';
import { pooledFetch } from './pooled-fetch.ts';
import { readServerSentEvents } from './sse.ts';
import type { ChatMessage, FetchFunction, ModelProvider, ModelRequest, ModelResult, ModelStreamEvent, ModelUsage, ToolCall } from './types.ts';
import {
  completeUpstream,
  isRecord,
  malformedAnswer,
  parseUpstreamJson,
  postJson,
  redactSecrets,
  streamUpstream,
  tokenCount,
  trimBaseUrl,
  type UpstreamCall,
} from './upstream.ts';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_VERSION = '2023-06-01';
/** max_tokens is required by the API; used when the prompt sets none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

export interface AnthropicOptions {
  apiKey: string;
  /** Without the /v1 segment. */
  baseUrl?: string;
  fetch?: FetchFunction;
}

const label = 'Anthropic';

export function createAnthropicProvider(options: AnthropicOptions): ModelProvider {
  const url = `${trimBaseUrl(options.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL)}/v1/messages`;
  const fetchImpl = options.fetch ?? pooledFetch;
  const headers = { 'x-api-key': options.apiKey, 'anthropic-version': ANTHROPIC_VERSION };
  const secrets = [options.apiKey];
  const post = (call: UpstreamCall, request: ModelRequest, stream: boolean) =>
    postJson({ fetch: fetchImpl, call, label, url, headers, body: requestBody(request, stream), secrets, traceparent: request.traceparent });

  return {
    name: 'anthropic',

    complete: (request: ModelRequest): Promise<ModelResult> => completeUpstream(label, request, (call) => post(call, request, false), parseMessage),

    stream: (request: ModelRequest): AsyncGenerator<ModelStreamEvent> =>
      streamUpstream(
        label,
        request,
        (call) => post(call, request, true),
        async function* (body) {
          let inputTokens: number | null = null;
          let outputTokens: number | null = null;
          let sawStop = false;
          /** Content block index → tool call index, for the tool_use blocks of the answer. */
          const toolBlocks = new Map<number, number>();
          for await (const event of readServerSentEvents(body, { isEnd: (event) => event.event === 'message_stop' })) {
            const data = parseUpstreamJson(event.data, label);
            if (!isRecord(data)) throw malformedAnswer(label, `the ${event.event} event is not an object`);
            const type = typeof data.type === 'string' ? data.type : event.event;
            if (type === 'message_start') {
              const usage = isRecord(data.message) && isRecord(data.message.usage) ? data.message.usage : null;
              inputTokens = usage ? inputTokenCount(usage) : null;
              outputTokens = usage ? tokenCount(usage.output_tokens) : null;
              if (inputTokens === null) throw malformedAnswer(label, 'message_start has no usage.input_tokens');
            } else if (type === 'content_block_start') {
              // A tool_use block: its id and name now, its input as input_json_delta pieces next.
              const block = isRecord(data.content_block) ? data.content_block : null;
              if (block?.type === 'tool_use' && typeof block.name === 'string') {
                const index = toolBlocks.size;
                toolBlocks.set(Number(data.index), index);
                request.onEvent?.({ type: 'tool_call_delta', index, id: String(block.id ?? `toolu_${index}`), name: block.name, arguments: '' });
              }
            } else if (type === 'content_block_delta') {
              const delta = isRecord(data.delta) ? data.delta : null;
              if (delta?.type === 'text_delta' && typeof delta.text === 'string' && delta.text !== '') yield { type: 'delta', text: delta.text };
              const toolIndex = toolBlocks.get(Number(data.index));
              if (delta?.type === 'input_json_delta' && typeof delta.partial_json === 'string' && toolIndex !== undefined) {
                request.onEvent?.({ type: 'tool_call_delta', index: toolIndex, arguments: delta.partial_json });
              }
            } else if (type === 'message_delta') {
              // The usage on message_delta is cumulative; newer API versions repeat the input count there.
              const usage = isRecord(data.usage) ? data.usage : null;
              outputTokens = (usage && tokenCount(usage.output_tokens)) ?? outputTokens;
              if (usage && usage.input_tokens !== undefined && usage.input_tokens !== null) inputTokens = inputTokenCount(usage) ?? inputTokens;
            } else if (type === 'message_stop') {
              sawStop = true;
            } else if (type === 'error') {
              const error = isRecord(data.error) ? data.error : {};
              const message = typeof error.message === 'string' ? error.message : 'unknown error';
              throw new AppError('provider_error', redactSecrets(`${label} reported an error mid-stream: ${message.slice(0, 300)}`, secrets));
            }
          }
          // Once the body is read: what the stream lacked, or its usage.
          return () => {
            if (!sawStop) throw malformedAnswer(label, 'the stream ended before message_stop');
            if (inputTokens === null || outputTokens === null) throw malformedAnswer(label, 'the stream reported no usage');
            return { inputTokens, outputTokens };
          };
        },
      ),
  };
}

function requestBody(request: ModelRequest, stream: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model,
    max_tokens: request.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages: request.messages.filter((message) => message.role !== 'system').map(toAnthropicMessage),
  };
  // Anthropic has no JSON mode: the schema (or "any JSON object") is asked for in the system prompt.
  const system = systemPrompt(request.messages, request.jsonSchema ?? (request.jsonObject ? { type: 'object' } : undefined), true);
  if (system) body.system = system;
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      input_schema: tool.parameters,
    }));
    const choice = request.toolChoice;
    if (choice !== undefined) {
      body.tool_choice =
        choice === 'auto'
          ? { type: 'auto' }
          : choice === 'required'
            ? { type: 'any' }
            : choice === 'none'
              ? { type: 'none' }
              : { type: 'tool', name: choice.name };
    }
  }
  // Anthropic's temperature runs from 0 to 1 (the spec allows up to 2), and current Claude models
  // refuse temperature and top_p together: temperature wins, top_p is sent only without it.
  if (request.temperature !== undefined) body.temperature = Math.min(Math.max(request.temperature, 0), 1);
  else if (request.topP !== undefined) body.top_p = request.topP;
  // Anthropic has no frequency or presence penalty.
  if (stream) body.stream = true;
  return body;
}

const parseArguments = (text: string): unknown => {
  try {
    return JSON.parse(text || '{}');
  } catch {
    return {};
  }
};

function toAnthropicMessage(message: ChatMessage): Record<string, unknown> {
  if (message.role === 'tool') {
    return { role: 'user', content: [{ type: 'tool_result', tool_use_id: message.toolCallId ?? '', content: message.content }] };
  }
  if (message.role === 'assistant' && message.toolCalls?.length) {
    return {
      role: 'assistant',
      content: [
        ...(message.content !== '' ? [{ type: 'text', text: message.content }] : []),
        ...message.toolCalls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: parseArguments(call.arguments) })),
      ],
    };
  }
  if (!message.images?.length) return { role: message.role, content: message.content };
  const content: Record<string, unknown>[] = message.images.map((image) => ({
    type: 'image',
    source: { type: 'base64', media_type: image.mimeType, data: image.data.toString('base64') },
  }));
  // Empty text blocks are refused, so an image-only message has none.
  if (message.content !== '') content.push({ type: 'text', text: message.content });
  return { role: message.role, content };
}

function parseMessage(body: unknown): ModelResult {
  if (!isRecord(body)) throw malformedAnswer(label, 'the body is not an object');
  if (!Array.isArray(body.content)) throw malformedAnswer(label, 'no content array');
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const block of body.content) {
    if (isRecord(block) && block.type === 'text') {
      if (typeof block.text !== 'string') throw malformedAnswer(label, 'a text block has no text');
      text += block.text;
    } else if (isRecord(block) && block.type === 'tool_use' && typeof block.name === 'string') {
      toolCalls.push({ id: String(block.id ?? `toolu_${toolCalls.length}`), name: block.name, arguments: JSON.stringify(block.input ?? {}) });
    }
  }
  const usage = isRecord(body.usage) ? body.usage : null;
  const inputTokens = usage && inputTokenCount(usage);
  const outputTokens = usage && tokenCount(usage.output_tokens);
  if (inputTokens === null || outputTokens === null) throw malformedAnswer(label, 'no usage.input_tokens / usage.output_tokens');
  return { text, usage: { inputTokens, outputTokens } satisfies ModelUsage, ...(toolCalls.length > 0 ? { toolCalls } : {}) };
}

/** input_tokens excludes prompt-cache reads and writes, which are input too. */
function inputTokenCount(usage: Record<string, unknown>): number | null {
  const input = tokenCount(usage.input_tokens);
  if (input === null) return null;
  return input + (tokenCount(usage.cache_creation_input_tokens) ?? 0) + (tokenCount(usage.cache_read_input_tokens) ?? 0);
}
