import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiKeyKeys } from '@/lib/api/keys/api-key-keys';
import { api } from '@/lib/api-client';

/** DELETE /api/keys/{id}/ (204) — the key stops authenticating at once. */
export function revokeApiKey(id: string): Promise<void> {
  return api.delete<void>(`/keys/${encodeURIComponent(id)}/`, { auth: 'required' });
}

export function useRevokeApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeApiKey,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiKeyKeys.lists() }),
  });
}
