// Google Gemini API (POST {base}/v1beta/models/{model}:generateContent, and
// :streamGenerateContent?alt=sse for SSE), key in the x-goog-api-key header. The system prompt is
// systemInstruction; roles are user and model. Streamed chunks have the same shape as the
// blocking answer; the stream has no end marker, so the chunk with a finishReason is the last.
// usageMetadata: promptTokenCount, candidatesTokenCount, thoughtsTokenCount (billed as output).

import { randomUUID } from 'node:crypto';
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

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';

export interface GeminiOptions {
  apiKey: string;
  /** Without the /v1beta segment. */
  baseUrl?: string;
  fetch?: FetchFunction;
}

const label = 'Gemini';
/** Finish reasons that still mean "here is the answer". */
const ANSWERED = new Set(['STOP', 'MAX_TOKENS', 'FINISH_REASON_UNSPECIFIED']);

export function createGeminiProvider(options: GeminiOptions): ModelProvider {
  const base = `${trimBaseUrl(options.baseUrl ?? GEMINI_DEFAULT_BASE_URL)}/v1beta/models/`;
  const fetchImpl = options.fetch ?? pooledFetch;
  const headers = { 'x-goog-api-key': options.apiKey };
  const secrets = [options.apiKey];
  const post = (call: UpstreamCall, request: ModelRequest, stream: boolean) => {
    const model = encodeURIComponent(request.model.replace(/^models\//, ''));
    const url = `${base}${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
    return postJson({ fetch: fetchImpl, call, label, url, headers, body: requestBody(request), secrets, traceparent: request.traceparent });
  };

  return {
    name: 'gemini',

    complete: (request: ModelRequest): Promise<ModelResult> =>
      completeUpstream(
        label,
        request,
        (call) => post(call, request, false),
        (body) => {
          const chunk = readResponse(body, secrets);
          if (!chunk.usage) throw malformedAnswer(label, 'no usageMetadata.promptTokenCount');
          if (chunk.text === '' && chunk.toolCalls.length === 0 && chunk.finishReason !== null && !ANSWERED.has(chunk.finishReason))
            throw refused(chunk.finishReason);
          return { text: chunk.text, usage: chunk.usage, ...(chunk.toolCalls.length > 0 ? { toolCalls: chunk.toolCalls } : {}) };
        },
      ),

    stream: (request: ModelRequest): AsyncGenerator<ModelStreamEvent> =>
      streamUpstream(
        label,
        request,
        (call) => post(call, request, true),
        async function* (body) {
          let usage: ModelUsage | null = null;
          let finishReason: string | null = null;
          let answered = false;
          let toolCalls = 0;
          for await (const event of readServerSentEvents(body)) {
            const chunk = readResponse(parseUpstreamJson(event.data, label), secrets);
            usage = chunk.usage ?? usage;
            finishReason = chunk.finishReason ?? finishReason;
            if (chunk.text !== '') {
              answered = true;
              yield { type: 'delta', text: chunk.text };
            }
            // Gemini streams each function call whole, in one chunk.
            for (const toolCall of chunk.toolCalls) {
              answered = true;
              request.onEvent?.({ type: 'tool_call_delta', index: toolCalls++, id: toolCall.id, name: toolCall.name, arguments: toolCall.arguments });
            }
          }
          // Once the body is read: what the stream lacked, or its usage.
          return () => {
            if (finishReason === null) throw malformedAnswer(label, 'the stream ended before a finishReason');
            if (!answered && !ANSWERED.has(finishReason)) throw refused(finishReason);
            if (!usage) throw malformedAnswer(label, 'the stream reported no usageMetadata');
            return usage;
          };
        },
      ),
  };
}

function requestBody(request: ModelRequest): Record<string, unknown> {
  const geminiSchema = request.jsonSchema ? toGeminiSchema(request.jsonSchema) : null;
  const body: Record<string, unknown> = {
    contents: request.messages.filter((message) => message.role !== 'system').map(toGeminiContent),
  };
  // A schema Gemini cannot take natively is asked for by instruction (with JSON mode still on).
  const system = systemPrompt(request.messages, request.jsonSchema, request.jsonSchema !== undefined && geminiSchema === null);
  if (system) body.systemInstruction = { parts: [{ text: system }] };
  const config: Record<string, unknown> = {};
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.maxTokens !== undefined) config.maxOutputTokens = request.maxTokens;
  // Several Gemini models refuse penalties outright, so the no-op value 0 is not sent.
  if (request.frequencyPenalty) config.frequencyPenalty = request.frequencyPenalty;
  if (request.presencePenalty) config.presencePenalty = request.presencePenalty;
  if (request.jsonSchema) {
    config.responseMimeType = 'application/json';
    if (geminiSchema) config.responseSchema = geminiSchema;
  } else if (request.jsonObject) config.responseMimeType = 'application/json';
  if (request.tools?.length) {
    body.tools = [
      {
        functionDeclarations: request.tools.map((tool) => ({
          name: tool.name,
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          parametersJsonSchema: tool.parameters,
        })),
      },
    ];
    const choice = request.toolChoice;
    if (choice !== undefined) {
      body.toolConfig = {
        functionCallingConfig:
          typeof choice === 'object'
            ? { mode: 'ANY', allowedFunctionNames: [choice.name] }
            : { mode: choice === 'required' ? 'ANY' : choice === 'none' ? 'NONE' : 'AUTO' },
      };
    }
  }
  if (Object.keys(config).length > 0) body.generationConfig = config;
  return body;
}

function toGeminiContent(message: ChatMessage): Record<string, unknown> {
  if (message.role === 'tool') {
    let response: unknown;
    try {
      response = JSON.parse(message.content);
    } catch {
      response = message.content;
    }
    const content = isRecord(response) ? response : { result: response };
    return { role: 'user', parts: [{ functionResponse: { name: message.toolName ?? message.toolCallId ?? '', response: content } }] };
  }
  if (message.role === 'assistant' && message.toolCalls?.length) {
    const calls = message.toolCalls.map((call) => {
      let args: unknown;
      try {
        args = JSON.parse(call.arguments || '{}');
      } catch {
        args = {};
      }
      return { functionCall: { name: call.name, args } };
    });
    return { role: 'model', parts: [...(message.content !== '' ? [{ text: message.content }] : []), ...calls] };
  }
  const parts: Record<string, unknown>[] = [];
  for (const image of message.images ?? []) parts.push({ inlineData: { mimeType: image.mimeType, data: image.data.toString('base64') } });
  if (message.content !== '' || parts.length === 0) parts.push({ text: message.content });
  return { role: message.role === 'assistant' ? 'model' : 'user', parts };
}

interface GeminiChunk {
  text: string;
  toolCalls: ToolCall[];
  finishReason: string | null;
  usage: ModelUsage | null;
}

/** Reads a GenerateContentResponse (a whole answer or one streamed chunk). */
function readResponse(body: unknown, secrets: readonly string[]): GeminiChunk {
  if (!isRecord(body)) throw malformedAnswer(label, 'the body is not an object');
  if (isRecord(body.error)) {
    const message = typeof body.error.message === 'string' ? body.error.message : 'unknown error';
    throw new AppError('provider_error', redactSecrets(`${label} reported an error: ${message.slice(0, 300)}`, secrets));
  }
  if (body.candidates !== undefined && !Array.isArray(body.candidates)) throw malformedAnswer(label, 'candidates is not an array');
  const candidate = body.candidates?.[0];
  if (candidate === undefined) {
    const feedback = isRecord(body.promptFeedback) ? body.promptFeedback : null;
    if (feedback && typeof feedback.blockReason === 'string') {
      throw new AppError('provider_error', `${label} refused the prompt (blockReason ${feedback.blockReason})`);
    }
  } else if (!isRecord(candidate)) {
    throw malformedAnswer(label, 'candidates[0] is not an object');
  }
  let text = '';
  const parts = isRecord(candidate) && isRecord(candidate.content) ? candidate.content.parts : undefined;
  if (parts !== undefined && !Array.isArray(parts)) throw malformedAnswer(label, 'candidates[0].content.parts is not an array');
  const toolCalls: ToolCall[] = [];
  for (const part of parts ?? []) {
    // Thought summaries (only sent when asked for) are not part of the answer.
    if (isRecord(part) && typeof part.text === 'string' && part.thought !== true) text += part.text;
    if (isRecord(part) && isRecord(part.functionCall) && typeof part.functionCall.name === 'string') {
      const call = part.functionCall;
      toolCalls.push({
        id: typeof call.id === 'string' ? call.id : `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
        name: call.name as string,
        arguments: JSON.stringify(call.args ?? {}),
      });
    }
  }
  const finishReason = isRecord(candidate) && typeof candidate.finishReason === 'string' ? candidate.finishReason : null;
  return { text, toolCalls, finishReason, usage: readUsage(body.usageMetadata) };
}

function readUsage(metadata: unknown): ModelUsage | null {
  if (!isRecord(metadata)) return null;
  const inputTokens = tokenCount(metadata.promptTokenCount);
  if (inputTokens === null) return null;
  // candidatesTokenCount is left out when the model produced nothing.
  const outputTokens = (tokenCount(metadata.candidatesTokenCount) ?? 0) + (tokenCount(metadata.thoughtsTokenCount) ?? 0);
  return { inputTokens, outputTokens };
}

function refused(finishReason: string): AppError {
  return new AppError('provider_error', `${label} returned no answer (finishReason ${finishReason})`);
}

// responseSchema takes a subset of OpenAPI 3.0 schemas: upper-case types, `nullable` instead of
// type unions, string enums only, non-empty properties on objects, and a few formats.
const GEMINI_SCHEMA_KEYS = new Set(['description', 'minItems', 'maxItems', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'required']);
/** Keywords that only loosen when dropped (documentation, or checks Gemini cannot express). */
const DROPPABLE_KEYS = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'default',
  'examples',
  'example',
  'readOnly',
  'writeOnly',
  'deprecated',
  'additionalProperties',
  'unevaluatedProperties',
  'uniqueItems',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'format',
  'minProperties',
  'maxProperties',
]);
const GEMINI_FORMATS: Record<string, readonly string[]> = { STRING: ['date-time', 'enum'], NUMBER: ['float', 'double'], INTEGER: ['int32', 'int64'] };
const GEMINI_TYPES = new Set(['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT']);

/** The schema in Gemini's dialect, or null when it uses something Gemini cannot take ($ref, oneOf, const…). */
export function toGeminiSchema(schema: unknown): Record<string, unknown> | null {
  if (!isRecord(schema)) return null;
  const result: Record<string, unknown> = {};
  let type: string | null = null;
  let nullable = schema.nullable === true;
  if (typeof schema.type === 'string') type = schema.type.toUpperCase();
  else if (Array.isArray(schema.type)) {
    const types = schema.type.filter((entry) => entry !== 'null');
    if (types.length !== 1 || typeof types[0] !== 'string') return null;
    type = types[0].toUpperCase();
    nullable ||= types.length < schema.type.length;
  } else if (schema.type !== undefined) return null;
  else if (isRecord(schema.properties)) type = 'OBJECT';
  else if (schema.items !== undefined) type = 'ARRAY';
  else if (Array.isArray(schema.enum)) type = 'STRING';

  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' || key === 'nullable') continue;
    if (key === 'properties') {
      if (!isRecord(value)) return null;
      const properties: Record<string, unknown> = {};
      for (const [name, child] of Object.entries(value)) {
        const converted = toGeminiSchema(child);
        if (!converted) return null;
        properties[name] = converted;
      }
      result.properties = properties;
      result.propertyOrdering = Object.keys(properties);
    } else if (key === 'items') {
      const items = toGeminiSchema(value);
      if (!items) return null;
      result.items = items;
    } else if (key === 'anyOf') {
      if (!Array.isArray(value) || value.length === 0) return null;
      const branches = value.map(toGeminiSchema);
      if (branches.some((branch) => branch === null)) return null;
      result.anyOf = branches;
    } else if (key === 'enum') {
      if (!Array.isArray(value) || value.length === 0 || !value.every((entry) => typeof entry === 'string')) return null;
      result.enum = value;
    } else if (key === 'format') {
      if (type && typeof value === 'string' && GEMINI_FORMATS[type]?.includes(value)) result.format = value;
    } else if (GEMINI_SCHEMA_KEYS.has(key)) {
      result[key] = value;
    } else if (!DROPPABLE_KEYS.has(key)) {
      return null;
    }
  }
  if (type === null) {
    if (!result.anyOf) return null;
  } else {
    if (!GEMINI_TYPES.has(type)) return null;
    if (type === 'OBJECT' && (!isRecord(result.properties) || Object.keys(result.properties).length === 0)) return null;
    if (type === 'ARRAY' && !result.items) return null;
    if (result.enum && type !== 'STRING') return null;
    result.type = type;
  }
  if (nullable) result.nullable = true;
  return result;
}
