import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useGatewayBearer } from '../hooks/use-gateway-bearer';
import { refreshAfterCall } from './after-paid-call';
import type { GatewayAnswer, GatewayCallOptions } from './gateway-types';
import { postGatewayMessage } from './post-gateway-message';

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
  const queryClient = useQueryClient();
  const bearerFor = useGatewayBearer();
  return useMutation({
    mutationFn: async ({ apiKey, ...request }: CompletionRequest & { apiKey: string }) => sendCompletion({ ...request, bearer: await bearerFor(apiKey) }),
    // Not awaited: the answer shows at once, the refreshed figures follow.
    onSuccess: () => {
      void refreshAfterCall(queryClient);
    },
  });
}
