import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Application, AppStatus } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { appKeys, appPath } from './app-keys';

/** PATCH /api/app/{slug}/update_status/ */
export function updateAppStatus({ slug, status }: { slug: string; status: AppStatus }): Promise<Application> {
  return api.patch<Application>(`${appPath(slug)}update_status/`, { status }, { auth: 'required' });
}

export function useUpdateAppStatus() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateAppStatus,
    onSuccess: async (app) => {
      queryClient.setQueryData(appKeys.detail(app.slug), app);
      await queryClient.invalidateQueries({ queryKey: appKeys.lists() });
    },
  });
}
