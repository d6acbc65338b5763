// The one interface every model provider implements. The gateway renders a prompt into messages,
// picks a provider through the model router (registry.ts) and calls complete() or stream().
//
// Errors, the same for every provider:
// - AppError('provider_timeout') when timeoutMs elapses first (the upstream request is aborted);
// - AppError('provider_error') on an upstream non-2xx answer, a network failure, or an answer
//   that is not in the provider's wire format (the message says what, never the API key);
// - an error whose name is 'AbortError' when the caller's signal aborts (the client went away);
//   the upstream request is aborted too.

export interface ChatImage {
  mimeType: string;
  data: Buffer;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
  images?: ChatImage[];
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
  /** Aborts when the caller no longer wants the answer. */
  signal: AbortSignal;
  /** Deadline for the whole upstream exchange (streaming included), in milliseconds. */
  timeoutMs: number;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ModelResult {
  text: string;
  usage: ModelUsage;
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
