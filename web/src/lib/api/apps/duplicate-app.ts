import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Application } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { appKeys, appPath } from './app-keys';

/** POST /api/app/{slug}/duplicate/ — a draft copy with a new slug (201). */
export function duplicateApp(slug: string): Promise<Application> {
  return api.post<Application>(`${appPath(slug)}duplicate/`, undefined, { auth: 'required' });
}

export function useDuplicateApp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: duplicateApp,
    onSuccess: async (app) => {
      queryClient.setQueryData(appKeys.detail(app.slug), app);
      await queryClient.invalidateQueries({ queryKey: appKeys.lists() });
    },
  });
}
