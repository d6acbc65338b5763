// Bring your own key: the signed-in creator's own provider credentials (GET/PUT/DELETE
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

export const providerKeysQueryKey = ['profile', 'provider-keys'] as const;
const path = (kind: CredentialKind) => `/profile/provider-keys/${kind}/`;

export function useProviderKeys() {
  return useQuery({
    queryKey: providerKeysQueryKey,
    queryFn: ({ signal }) => api.get<ProviderCredentialList>('/profile/provider-keys/', { auth: 'required', signal }),
  });
}

export function useSaveProviderKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ kind, body }: { kind: CredentialKind; body: ProviderCredentialSave }) => api.put<ProviderCredential>(path(kind), body, { auth: 'required' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: providerKeysQueryKey }),
  });
}

export function useRemoveProviderKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (kind: CredentialKind) => api.delete<null>(path(kind), { auth: 'required' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: providerKeysQueryKey }),
  });
}

export function useTestProviderKey() {
  return useMutation({
    mutationFn: ({ kind, body }: { kind: CredentialKind; body: ProviderCredentialTest }) =>
      api.post<ProviderCredentialTestResult>(`${path(kind)}test/`, body, { auth: 'required' }),
  });
}
