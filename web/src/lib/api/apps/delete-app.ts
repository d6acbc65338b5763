import { type QueryClient, type QueryKey, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { appKeys, appPath } from './app-keys';

/** DELETE /api/app/{slug}/ (204) */
export function deleteApp(slug: string): Promise<void> {
  return api.delete<void>(appPath(slug), { auth: 'required' });
}

/**
 * Drops a query from the cache once no screen shows it. The detail page of the deleted app is still
 * mounted when the delete succeeds; removing its queries at once would make it refetch them.
 */
function removeWhenUnobserved(queryClient: QueryClient, queryKey: QueryKey) {
  const cache = queryClient.getQueryCache();
  const query = cache.find({ queryKey, exact: true });
  if (!query) return;
  if (query.getObserversCount() === 0) {
    cache.remove(query);
    return;
  }
  const unsubscribe = cache.subscribe((event) => {
    if (event.query !== query) return;
    if (event.type === 'removed') unsubscribe();
    else if (event.type === 'observerRemoved' && query.getObserversCount() === 0) {
      unsubscribe();
      cache.remove(query);
    }
  });
}

export function useDeleteApp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteApp,
    onSuccess: async (_result, slug) => {
      for (const queryKey of [appKeys.detail(slug), appKeys.usage(slug)]) {
        await queryClient.cancelQueries({ queryKey });
        removeWhenUnobserved(queryClient, queryKey);
      }
      await queryClient.invalidateQueries({ queryKey: appKeys.lists() });
    },
  });
}
