// Bring your own key: the signed-in creator's own provider keys (GET/PUT/DELETE
// /api/profile/provider-keys/{kind}/ and Test Connection).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  CredentialKind,
  ProviderCredential,
  ProviderCredentialList,
  ProviderCredentialSave,
  ProviderCredentialTest,
  ProviderCredentialTestResult,
} from '@tollbooth/contract';
import { api } from '@/lib/api-client';

export const ownKeysQueryKey = ['profile', 'provider-keys'] as const;
const path = (kind: CredentialKind) => `/profile/provider-keys/${kind}/`;

export function useOwnKeys() {
  return useQuery({
    queryKey: ownKeysQueryKey,
    queryFn: ({ signal }) => api.get<ProviderCredentialList>('/profile/provider-keys/', { auth: 'required', signal }),
  });
}

export function useSaveOwnKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ kind, body }: { kind: CredentialKind; body: ProviderCredentialSave }) => api.put<ProviderCredential>(path(kind), body, { auth: 'required' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ownKeysQueryKey }),
  });
}

export function useRemoveOwnKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (kind: CredentialKind) => api.delete<null>(path(kind), { auth: 'required' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ownKeysQueryKey }),
  });
}

export function useTestOwnKey() {
  return useMutation({
    mutationFn: ({ kind, body }: { kind: CredentialKind; body: ProviderCredentialTest }) =>
      api.post<ProviderCredentialTestResult>(`${path(kind)}test/`, body, { auth: 'required' }),
  });
}
