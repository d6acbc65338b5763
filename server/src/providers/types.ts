// The one interface every model provider implements. The gateway renders a prompt into messages,
// picks a provider through the model router (registry.ts) and calls complete() or stream().
//
// Errors, the same for every provider:
// - AppError('provider_timeout') when timeoutMs elapses first (the upstream request is aborted);
// - AppError('provider_error') on an upstream non-2xx answer, a network failure, or an answer
//   that is not in the provider's wire format (the message says what, never the API key);
// - an error whose name is 'AbortError' when the caller's signal aborts (the client went away);
//   the upstream request is aborted too.
import type { CallerSignal } from './abort-hook.ts';

export interface ChatImage {
  mimeType: string;
  data: Buffer;
}

/** A function the model may call (the caller's own tools, OpenAI's function tools). */
export interface ToolDefinition {
  name: string;
  description?: string;
  /** A JSON Schema of the arguments object. */
  parameters: object;
  strict?: boolean;
}

/** auto: the model decides; none: no tool; required: some tool; {name}: that tool. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** A call of one of the request's tools the model asked for; arguments is JSON text. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A streamed piece of a tool call: the first piece of a call carries its id and name, the next ones more of its arguments. */
export interface ToolCallDelta {
  type: 'tool_call_delta';
  index: number;
  id?: string;
  name?: string;
  arguments: string;
}

export interface ChatMessage {
  /** 'tool': the result of a tool call (toolCallId says which). */
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  images?: ChatImage[];
  /** Assistant messages: the tool calls the model made. */
  toolCalls?: ToolCall[];
  /** Tool messages: the call this is the result of. */
  toolCallId?: string;
  /** Tool messages: the tool's name (Gemini pairs results by name). */
  toolName?: string;
}

export interface ModelRequest {
  /** The upstream model id (the router maps the spec's model names to it). */
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  /** Ask for a JSON answer matching this JSON Schema. */
  jsonSchema?: object;
  /** The schema's name where the provider wants one (OpenAI's json_schema.name). */
  jsonSchemaName?: string;
  /** Ask for any JSON object (OpenAI's json_object); jsonSchema, when set, wins. */
  jsonObject?: boolean;
  /** Functions the model may call instead of answering; its calls come back in ModelResult.toolCalls. */
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  /** Aborts when the caller no longer wants the answer. */
  signal: CallerSignal;
  /** Deadline for the whole upstream exchange (streaming included), in milliseconds. */
  timeoutMs: number;
  /**
   * Streaming only: receives the provider's events other than text (Dify's agent_thought,
   * workflow_started, node_finished, message_file…), in order with the deltas. Model providers
   * send only tool-call pieces (ToolCallDelta), when the request has tools; the gateway passes
   * them to the caller with Tollbooth's ids.
   */
  onEvent?: (event: Record<string, unknown>) => void;
  /** The W3C traceparent of the call's upstream span, sent as the traceparent header (when tracing is on). */
  traceparent?: string;
}

/** Every key of a type, optional ones included (undefined when absent): a literal typed so must list them all (decision 0058). */
export type EveryKey<T> = { [K in keyof Required<T>]: T[K] };

/** A model request before its call: what the gateway prepares (the signal and deadline come with the call). */
export type PreparedModelRequest = Omit<ModelRequest, 'signal' | 'timeoutMs' | 'traceparent'>;

/**
 * The request with its call's signal and deadline. Every key is spelt out (the type makes a new one
 * of ModelRequest fail here until it is added) rather than `{ ...request, signal, timeoutMs }`: V8
 * gives each object built by a spread followed by more keys a hidden class of its own (decision 0058).
 */
export function withDeadline(request: PreparedModelRequest, signal: CallerSignal, timeoutMs: number, traceparent?: string): ModelRequest {
  const complete: EveryKey<ModelRequest> = {
    model: request.model,
    messages: request.messages,
    temperature: request.temperature,
    maxTokens: request.maxTokens,
    topP: request.topP,
    frequencyPenalty: request.frequencyPenalty,
    presencePenalty: request.presencePenalty,
    jsonSchema: request.jsonSchema,
    jsonSchemaName: request.jsonSchemaName,
    jsonObject: request.jsonObject,
    tools: request.tools,
    toolChoice: request.toolChoice,
    signal,
    timeoutMs,
    onEvent: request.onEvent,
    traceparent,
  };
  return complete;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache (part of inputTokens), where it reports them: a per-token app may price them apart. */
  cachedInputTokens?: number;
}

export interface ModelResult {
  text: string;
  usage: ModelUsage;
  /** The tools the model called (only when the request had tools). */
  toolCalls?: ToolCall[];
}

export type ModelStreamEvent =
  | { type: 'delta'; text: string }
  /**
   * A provider's event other than text (workflow providers: Dify's agent_thought, workflow_started,
   * node_finished, message_file…), in order with the deltas; model providers have none. The gateway
   * passes it to a streaming caller with Tollbooth's ids; `answer` says whether it carries part of
   * the answer, which makes the stream charged once it is sent (decision 0026).
   */
  | { type: 'event'; event: Record<string, unknown>; answer: boolean }
  | { type: 'done'; usage: ModelUsage };

export interface ModelProvider {
  name: string;
  complete(request: ModelRequest): Promise<ModelResult>;
  /** Text deltas in order, then exactly one 'done' with the usage; stopping early aborts the upstream request. */
  stream(request: ModelRequest): AsyncIterable<ModelStreamEvent>;
}

/** Lets tests and the router inject a fetch (the default is Node's global fetch, which pools keep-alive connections). */
export type FetchFunction = typeof fetch;
