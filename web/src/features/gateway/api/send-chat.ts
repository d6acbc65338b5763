import type { GatewayAnswer, GatewayCallOptions } from './gateway-types';
import { postGatewayMessage } from './post-gateway-message';
import { useGatewayCall } from './use-gateway-call';

export interface ChatRequest extends Omit<GatewayCallOptions, 'bearer'> {
  slug: string;
  query: string;
  inputs?: Record<string, unknown>;
  /** Continues that conversation; absent starts a new one. */
  conversationId?: string;
}

/** POST /api/app/{slug}/chat-messages */
export function sendChat({ slug, query, inputs, conversationId, ...options }: ChatRequest & Pick<GatewayCallOptions, 'bearer'>): Promise<GatewayAnswer> {
  const body = {
    query,
    ...(inputs && Object.keys(inputs).length > 0 ? { inputs } : {}),
    ...(conversationId ? { conversation_id: conversationId } : {}),
  };
  return postGatewayMessage(slug, 'chat-messages', body, options);
}

/** Sends a chat message as the pasted API key (`apiKey`) or, without one, as the signed-in user. */
export function useSendChat() {
  return useGatewayCall<ChatRequest>(sendChat);
}
