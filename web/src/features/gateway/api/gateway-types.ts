// The gateway's calls as the console makes them; the shapes are the contract's (Dify-compatible).
import type { CallAnswer, CallRequest, CallUsage } from '@tollbooth/contract';

export type GatewayAction = 'completion-messages' | 'chat-messages';

/** The usage of an answer (contract/src/gateway.ts). */
export type GatewayUsage = CallUsage;

/** A blocking answer, or a streamed one put back together (the contract's CallAnswer). */
export type GatewayAnswer = CallAnswer;

export type CompletionBody = Required<Pick<CallRequest, 'inputs'>>;

export type ChatBody = Pick<CallRequest, 'inputs' | 'conversation_id'> & { query: string };

/** How a console call is made: who pays (the bearer) and whether the answer streams. */
export interface GatewayCallOptions {
  /** An API key (tb_...) or an access token; null sends no Authorization header. */
  bearer: string | null;
  stream: boolean;
  /** Called with the whole answer so far each time a streamed chunk arrives. */
  onAnswer?: (answerSoFar: string) => void;
  signal?: AbortSignal;
}
