// GET /api/operator/access/: answered for an operator, 404 for anyone else.
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { ApiError } from '@/lib/errors';
import { operatorKeys } from './operator-keys';

/** True for an operator, false for anyone the server answers 404. */
export async function getOperatorAccess(signal?: AbortSignal): Promise<boolean> {
  try {
    await api.get('/operator/access/', { auth: 'required', signal });
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return false;
    throw error;
  }
}

/** Asked once per session: the user menu's Operator link and the page's guard share it. */
export function useOperatorAccess({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: operatorKeys.access(),
    queryFn: ({ signal }) => getOperatorAccess(signal),
    enabled,
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
}
