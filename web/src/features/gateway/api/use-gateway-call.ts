import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useGatewayBearer } from '../hooks/use-gateway-bearer';
import { refreshAfterCall } from './after-paid-call';
import type { GatewayAnswer, GatewayCallOptions } from './gateway-types';

/** A gateway call made as the pasted API key (`apiKey`) or, without one, as the signed-in user. */
export function useGatewayCall<Request extends object>(send: (request: Request & Pick<GatewayCallOptions, 'bearer'>) => Promise<GatewayAnswer>) {
  const queryClient = useQueryClient();
  const bearerFor = useGatewayBearer();
  return useMutation({
    mutationFn: async ({ apiKey, ...request }: Request & { apiKey: string }) => send({ ...(request as Request), bearer: await bearerFor(apiKey) }),
    // Not awaited: the answer shows at once, the refreshed figures follow.
    onSuccess: () => {
      void refreshAfterCall(queryClient);
    },
  });
}
