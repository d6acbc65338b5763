// OpenAI Chat Completions (POST {base}/chat/completions), which OpenAI serves and so do Ollama,
// vLLM, OpenRouter and LiteLLM. Streaming is SSE "data:" lines of chat.completion.chunk objects
// ending with "data: [DONE]"; with stream_options.include_usage the last chunk before [DONE] has
// empty choices and the usage for the whole request.

import { AppError } from '../platform/errors.ts';
import { pooledFetch } from './pooled-fetch.ts';
import { readServerSentEvents } from './sse.ts';
import { countPromptTokens, countTokens } from './tokens.ts';
import type {
  ChatMessage,
  FetchFunction,
  ModelProvider,
  ModelRequest,
  ModelResult,
  ModelStreamEvent,
  ModelUsage,
  ToolCall,
  ToolCallDelta,
  ToolChoice,
} from './types.ts';
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

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAICompatibleOptions {
  /** Up to and including the version segment, e.g. https://api.openai.com/v1 or http://localhost:11434/v1. */
  baseUrl: string;
  /** Sent as a Bearer token; local servers (Ollama, vLLM) may need none. */
  apiKey: string | null;
  fetch?: FetchFunction;
  /** How error messages name the upstream. */
  label?: string;
}

export function createOpenAICompatibleProvider(options: OpenAICompatibleOptions): ModelProvider {
  const url = `${trimBaseUrl(options.baseUrl)}/chat/completions`;
  const label = options.label ?? (trimBaseUrl(options.baseUrl) === OPENAI_DEFAULT_BASE_URL ? 'OpenAI' : 'The OpenAI-compatible provider');
  const fetchImpl = options.fetch ?? pooledFetch;
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const post = (call: UpstreamCall, request: ModelRequest, stream: boolean) =>
    postJson({ fetch: fetchImpl, call, label, url, headers, body: requestBody(request, stream), secrets: [options.apiKey], traceparent: request.traceparent });

  return {
    name: 'openai',

    complete: (request: ModelRequest): Promise<ModelResult> =>
      completeUpstream(
        label,
        request,
        (call) => post(call, request, false),
        (body) => parseCompletion(body, request, label),
      ),

    stream: (request: ModelRequest): AsyncGenerator<ModelStreamEvent> =>
      streamUpstream(
        label,
        request,
        (call) => post(call, request, true),
        async function* (body) {
          let usage: ModelUsage | null = null;
          let text = '';
          let sawDone = false;
          for await (const event of readServerSentEvents(body, { isEnd: (event) => event.data === '[DONE]' })) {
            if (event.data === '[DONE]') {
              sawDone = true;
              continue;
            }
            const chunk = parseUpstreamJson(event.data, label);
            if (!isRecord(chunk)) throw malformedAnswer(label, 'a stream chunk is not an object');
            if (chunk.error !== undefined) throw streamError(chunk.error, label, [options.apiKey]);
            const delta = chunkDelta(chunk, label);
            for (const piece of chunkToolCalls(chunk)) request.onEvent?.({ ...piece });
            if (isRecord(chunk.usage)) usage = readUsage(chunk.usage) ?? usage;
            if (delta) {
              text += delta;
              yield { type: 'delta', text: delta };
            }
          }
          // Once the body is read: what the stream lacked, or its usage.
          return () => {
            if (!sawDone) throw malformedAnswer(label, 'the stream ended before [DONE]');
            return usage ?? estimateUsage(request.messages, text);
          };
        },
      ),
  };
}

function requestBody(request: ModelRequest, stream: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { model: request.model, messages: request.messages.map(toOpenAIMessage) };
  // max_tokens rather than max_completion_tokens: every OpenAI-compatible server understands it.
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.frequencyPenalty !== undefined) body.frequency_penalty = request.frequencyPenalty;
  if (request.presencePenalty !== undefined) body.presence_penalty = request.presencePenalty;
  if (request.jsonSchema) {
    body.response_format = { type: 'json_schema', json_schema: { name: request.jsonSchemaName ?? 'output', schema: request.jsonSchema, strict: false } };
  } else if (request.jsonObject) {
    body.response_format = { type: 'json_object' };
  }
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        parameters: tool.parameters,
        ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
      },
    }));
    if (request.toolChoice !== undefined) body.tool_choice = toOpenAIToolChoice(request.toolChoice);
  }
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

const toOpenAIToolChoice = (choice: ToolChoice) => (typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } });

function toOpenAIMessage(message: ChatMessage): Record<string, unknown> {
  if (message.role === 'tool') return { role: 'tool', tool_call_id: message.toolCallId ?? '', content: message.content };
  if (message.role === 'assistant' && message.toolCalls?.length) {
    return {
      role: 'assistant',
      content: message.content === '' ? null : message.content,
      tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
    };
  }
  // Only user messages may carry images in Chat Completions.
  if (message.role !== 'user' || !message.images?.length) return { role: message.role, content: message.content };
  return {
    role: message.role,
    content: [
      { type: 'text', text: message.content },
      ...message.images.map((image) => ({ type: 'image_url', image_url: { url: `data:${image.mimeType};base64,${image.data.toString('base64')}` } })),
    ],
  };
}

function parseCompletion(body: unknown, request: ModelRequest, label: string): ModelResult {
  if (!isRecord(body)) throw malformedAnswer(label, 'the body is not an object');
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isRecord(choice) || !isRecord(choice.message)) throw malformedAnswer(label, 'no choices[0].message');
  const { content, refusal } = choice.message;
  if (content !== null && content !== undefined && typeof content !== 'string') throw malformedAnswer(label, 'choices[0].message.content is not text');
  const text = content ?? (typeof refusal === 'string' ? refusal : '');
  const usage = isRecord(body.usage) ? readUsage(body.usage) : null;
  const toolCalls = readToolCalls(choice.message.tool_calls, label);
  return { text, usage: usage ?? estimateUsage(request.messages, text), ...(toolCalls.length > 0 ? { toolCalls } : {}) };
}

function readToolCalls(value: unknown, label: string): ToolCall[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw malformedAnswer(label, 'choices[0].message.tool_calls is not an array');
  return value.map((call, index) => {
    const fn = isRecord(call) && isRecord(call.function) ? call.function : null;
    if (!isRecord(call) || !fn || typeof fn.name !== 'string') throw malformedAnswer(label, `tool_calls[${index}] has no function name`);
    return { id: typeof call.id === 'string' ? call.id : `call_${index}`, name: fn.name, arguments: typeof fn.arguments === 'string' ? fn.arguments : '{}' };
  });
}

/** The tool-call pieces of a stream chunk (choices[0].delta.tool_calls). */
function chunkToolCalls(chunk: Record<string, unknown>): ToolCallDelta[] {
  const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  const calls = isRecord(choice) && isRecord(choice.delta) ? choice.delta.tool_calls : undefined;
  if (!Array.isArray(calls)) return [];
  return calls.filter(isRecord).map((call, position) => {
    const fn = isRecord(call.function) ? call.function : {};
    return {
      type: 'tool_call_delta',
      index: typeof call.index === 'number' ? call.index : position,
      ...(typeof call.id === 'string' ? { id: call.id } : {}),
      ...(typeof fn.name === 'string' ? { name: fn.name } : {}),
      arguments: typeof fn.arguments === 'string' ? fn.arguments : '',
    };
  });
}

function chunkDelta(chunk: Record<string, unknown>, label: string): string {
  if (chunk.choices === undefined || chunk.choices === null) return '';
  if (!Array.isArray(chunk.choices)) throw malformedAnswer(label, 'a stream chunk has no choices array');
  const choice = chunk.choices[0];
  if (choice === undefined) return '';
  if (!isRecord(choice)) throw malformedAnswer(label, 'a stream chunk has a malformed choice');
  const content = isRecord(choice.delta) ? choice.delta.content : undefined;
  return typeof content === 'string' ? content : '';
}

function readUsage(usage: Record<string, unknown>): ModelUsage | null {
  const inputTokens = tokenCount(usage.prompt_tokens);
  const outputTokens = tokenCount(usage.completion_tokens);
  if (inputTokens === null || outputTokens === null) return null;
  const details = usage.prompt_tokens_details;
  const cached = isRecord(details) ? tokenCount(details.cached_tokens) : null;
  return cached ? { inputTokens, outputTokens, cachedInputTokens: Math.min(cached, inputTokens) } : { inputTokens, outputTokens };
}

/** Some compatible servers report no usage; then the tokens are counted here, with GPT-4's tokenizer. */
function estimateUsage(messages: readonly ChatMessage[], text: string): ModelUsage {
  return { inputTokens: countPromptTokens(messages), outputTokens: countTokens(text) };
}

function streamError(error: unknown, label: string, secrets: readonly (string | null)[]): AppError {
  const message = isRecord(error) && typeof error.message === 'string' ? error.message : typeof error === 'string' ? error : 'unknown error';
  return new AppError('provider_error', redactSecrets(`${label} reported an error mid-stream: ${message.slice(0, 300)}`, secrets));
}
