import { useCallback } from 'react';
import { useAuth } from '@/lib/auth/use-auth';

/** Who a console call is made as: the pasted API key when there is one, else the signed-in session. */
export function useGatewayBearer(): (apiKey: string) => Promise<string | null> {
  const { getAccessToken } = useAuth();
  return useCallback(async (apiKey: string) => apiKey.trim() || (await getAccessToken()), [getAccessToken]);
}
