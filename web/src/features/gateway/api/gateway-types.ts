// The gateway's answers as the console reads them (server/src/gateway/routes.ts, Dify-compatible).

export type GatewayAction = 'completion-messages' | 'chat-messages';

export interface GatewayUsage {
  input_tokens: number;
  output_tokens: number;
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  /** Seconds. */
  latency?: number;
}

/** A blocking answer, or a streamed one put back together. */
export interface GatewayAnswer {
  event: 'message';
  task_id: string;
  id: string;
  message_id: string;
  conversation_id: string;
  mode: 'completion' | 'chat';
  answer: string;
  metadata: { usage: GatewayUsage };
  /** Unix seconds. */
  created_at: number;
}

export interface CompletionBody {
  inputs: Record<string, unknown>;
}

export interface ChatBody {
  query: string;
  inputs?: Record<string, unknown>;
  conversation_id?: string;
}

/** How a console call is made: who pays (the bearer) and whether the answer streams. */
export interface GatewayCallOptions {
  /** An API key (tb_...) or an access token; null sends no Authorization header. */
  bearer: string | null;
  stream: boolean;
  /** Called with the whole answer so far each time a streamed chunk arrives. */
  onAnswer?: (answerSoFar: string) => void;
  signal?: AbortSignal;
}
