// The one interface every workflow provider implements (Dify first). A second provider is a new
// module registered in registry.ts; the gateway and the workflow configuration only see this.
//
// Errors, the same for every provider (see errors.ts for the codes):
// - AppError('provider_timeout') when the deadline passes first (the upstream request is aborted);
// - AppError('provider_auth_failed') when the provider refuses the creator's key;
// - AppError('provider_quota_exceeded') when the creator's provider account is out of quota;
// - AppError('provider_error') for any other upstream failure (HTTP error, error event, cut stream,
//   an answer not in the wire format, unreachable host), never naming the key;
// - AppError('invalid_param' | 'not_found') when the provider says the caller's request is wrong;
// - an error named 'AbortError' when the caller's signal aborted (the upstream request is aborted too).
import type { CallerSignal } from '../abort-hook.ts';

/** One field of a provider's configuration form. */
export interface ConfigField {
  title: string;
  description: string;
  type: 'string';
  default?: string;
  /** Stored encrypted, returned masked (last 4 characters). */
  secret?: boolean;
}

export interface ConfigSchema {
  type: 'object';
  properties: Record<string, ConfigField>;
  required: string[];
}

/** A configuration with its secrets in clear: only ever in memory, for one call. */
export type ProviderSettings = Record<string, string>;

/** One field of the app's input form, as the provider reports it (Dify's user_input_form entries). */
export type InputFormEntry = Record<
  string,
  { label?: string; variable: string; required?: boolean; default?: unknown; options?: string[]; max_length?: number }
>;

export interface WorkflowAppInfo {
  name: string;
  description: string;
  /** Dify: completion | chat | agent-chat | advanced-chat | workflow. */
  mode: string;
  user_input_form: InputFormEntry[];
}

export interface WorkflowUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface WorkflowCallRequest {
  settings: ProviderSettings;
  /** The app's mode as the provider reported it; decides the upstream endpoint. */
  appMode: string;
  inputs: Record<string, unknown>;
  query: string | null;
  /** The provider's conversation id to continue, or null for a new one. */
  conversationId: string | null;
  /** Who the call is for, in a form that does not reveal the caller's account id. */
  user: string;
  files: { type: string; transfer_method: 'local_file' | 'remote_url'; upload_file_id?: string; url?: string }[];
  signal: CallerSignal;
  timeoutMs: number;
  /** The Tollbooth-Hop header of the request that makes this call (http/call-chain.ts). */
  hop: string;
  /** The call's W3C traceparent (tracing on), sent as the traceparent header. */
  traceparent?: string;
}

export interface WorkflowResult {
  answer: string;
  usage: WorkflowUsage;
  conversationId: string | null;
  taskId: string | null;
}

export type WorkflowStreamEvent =
  /** A piece of the answer, to send to the caller. */
  | { type: 'delta'; text: string }
  /** The provider's task id, as soon as it is known (for stop). */
  | { type: 'task'; taskId: string }
  /**
   * Any other provider event (Dify: agent_thought, message_file, message_replace, tts_message,
   * workflow_started, node_started, node_finished, workflow_finished…), in order, as the provider
   * sent it: the gateway passes it to a streaming caller with Tollbooth's ids in place of the
   * provider's. `answer` says whether it carries part of the answer (an LLM node's outputs, a file,
   * a replacement, speech, an agent's thought): a caller sent one pays, as for text (decision 0026).
   */
  | { type: 'event'; event: Record<string, unknown>; answer: boolean }
  /** Exactly once, last, when the provider reported success. */
  | { type: 'done'; usage: WorkflowUsage; conversationId: string | null };

export interface WorkflowProvider {
  id: string;
  slug: string;
  name: string;
  description: string;
  configSchema: ConfigSchema;
  /** Checks the key and app against the provider; describes the app and its input form. */
  // `hop`, on every method: the Tollbooth-Hop header of the request it answers (http/call-chain.ts).
  checkConfiguration(settings: ProviderSettings, signal: AbortSignal, hop: string): Promise<WorkflowAppInfo>;
  /** The app's input form only (cheaper than checkConfiguration where the provider allows it). */
  describeInputs(settings: ProviderSettings, signal: AbortSignal, hop: string): Promise<WorkflowAppInfo['user_input_form']>;
  /** A blocking answer; apps answered from a stream (Dify agents and workflows) are stopped upstream on abort or timeout. */
  callBlocking(request: WorkflowCallRequest): Promise<WorkflowResult>;
  /**
   * Deltas (and other events) in order, then one 'done'. Ending before 'done' (the caller went
   * away, the deadline passed, the consumer stopped reading) aborts the upstream request and asks
   * the provider to stop the task once its id is known.
   */
  callStreaming(request: WorkflowCallRequest): AsyncIterable<WorkflowStreamEvent>;
  /** Asks the provider to stop a running task (best effort). */
  stop(settings: ProviderSettings, appMode: string, taskId: string, user: string, hop: string): Promise<void>;
  /** Uploads a file for a later call; answers the provider's file id. */
  uploadFile(
    settings: ProviderSettings,
    file: { name: string; mimeType: string; data: Buffer },
    user: string,
    signal: AbortSignal,
    hop: string,
  ): Promise<string>;
}
