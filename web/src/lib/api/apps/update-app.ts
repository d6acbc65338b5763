import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Application, ApplicationUpdate } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { appKeys, appPath } from './app-keys';

/** PATCH /api/app/{slug}/ */
export function updateApp({ slug, changes }: { slug: string; changes: ApplicationUpdate }): Promise<Application> {
  return api.patch<Application>(appPath(slug), changes, { auth: 'required' });
}

export function useUpdateApp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateApp,
    onSuccess: async (app) => {
      queryClient.setQueryData(appKeys.detail(app.slug), app);
      await queryClient.invalidateQueries({ queryKey: appKeys.lists() });
    },
  });
}
