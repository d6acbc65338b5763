// Webhook endpoints, their delivery log and the account's alert settings (/api/webhooks/...).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  WebhookAlertSettings,
  WebhookAlertSettingsUpdate,
  WebhookAttempt,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointCreated,
  WebhookEndpointUpdate,
} from '@tollbooth/contract';
import { api } from '@/lib/api-client';

export const endpointsQueryKey = ['webhooks', 'endpoints'] as const;
export const settingsQueryKey = ['webhooks', 'settings'] as const;
const attemptsQueryKey = (id: string) => ['webhooks', 'attempts', id] as const;

export function useWebhookEndpoints() {
  return useQuery({
    queryKey: endpointsQueryKey,
    queryFn: ({ signal }) => api.get<WebhookEndpoint[]>('/webhooks/endpoints/', { auth: 'required', signal }),
  });
}

export function useCreateWebhookEndpoint() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: WebhookEndpointCreate) => api.post<WebhookEndpointCreated>('/webhooks/endpoints/', body, { auth: 'required' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: endpointsQueryKey }),
  });
}

export function useUpdateWebhookEndpoint() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: WebhookEndpointUpdate }) =>
      api.patch<WebhookEndpoint>(`/webhooks/endpoints/${id}/`, body, { auth: 'required' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: endpointsQueryKey }),
  });
}

export function useDeleteWebhookEndpoint() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete<null>(`/webhooks/endpoints/${id}/`, { auth: 'required' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: endpointsQueryKey }),
  });
}

/** The delivery log, polled every 5 s while shown. */
export function useWebhookAttempts(id: string | null) {
  return useQuery({
    queryKey: attemptsQueryKey(id ?? ''),
    enabled: id !== null,
    refetchInterval: 5000,
    queryFn: ({ signal }) => api.get<WebhookAttempt[]>(`/webhooks/endpoints/${id}/attempts/?limit=50`, { auth: 'required', signal }),
  });
}

export function useSendAgain() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, deliveryId }: { id: string; deliveryId: string }) =>
      api.post<null>(`/webhooks/endpoints/${id}/deliveries/${deliveryId}/send-again/`, undefined, { auth: 'required' }),
    onSuccess: (_data, { id }) => {
      setTimeout(() => void queryClient.invalidateQueries({ queryKey: attemptsQueryKey(id) }), 1500);
    },
  });
}

export function useWebhookSettings() {
  return useQuery({
    queryKey: settingsQueryKey,
    queryFn: ({ signal }) => api.get<WebhookAlertSettings>('/webhooks/settings/', { auth: 'required', signal }),
  });
}

export function useUpdateWebhookSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: WebhookAlertSettingsUpdate) => api.patch<WebhookAlertSettings>('/webhooks/settings/', body, { auth: 'required' }),
    onSuccess: (data) => queryClient.setQueryData(settingsQueryKey, data),
  });
}
