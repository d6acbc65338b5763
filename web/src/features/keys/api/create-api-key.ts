import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiKeyCreate, ApiKeyCreated } from '@tollbooth/contract';
import { apiKeyKeys } from '@/lib/api/keys/api-key-keys';
import { api } from '@/lib/api-client';

/** POST /api/keys/ (201) — the answer's `key` is the only time the full key is ever shown. */
export function createApiKey(body: ApiKeyCreate): Promise<ApiKeyCreated> {
  return api.post<ApiKeyCreated>('/keys/', body, { auth: 'required' });
}

export function useCreateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createApiKey,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiKeyKeys.lists() }),
  });
}
