import type { GatewayAnswer, GatewayCallOptions } from './gateway-types';
import { postGatewayMessage } from './post-gateway-message';
import { useGatewayCall } from './use-gateway-call';

export interface CompletionRequest extends Omit<GatewayCallOptions, 'bearer'> {
  slug: string;
  inputs: Record<string, unknown>;
}

/** POST /api/app/{slug}/completion-messages */
export function sendCompletion({ slug, inputs, ...options }: CompletionRequest & Pick<GatewayCallOptions, 'bearer'>): Promise<GatewayAnswer> {
  return postGatewayMessage(slug, 'completion-messages', { inputs }, options);
}

/** Runs a completion as the pasted API key (`apiKey`) or, without one, as the signed-in user. */
export function useSendCompletion() {
  return useGatewayCall<CompletionRequest>(sendCompletion);
}
