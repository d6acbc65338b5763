import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Application, ApplicationCreate } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { appKeys } from './app-keys';

/** POST /api/app/ */
export function createApp(body: ApplicationCreate): Promise<Application> {
  return api.post<Application>('/app/', body, { auth: 'required' });
}

export function useCreateApp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createApp,
    onSuccess: async (app) => {
      queryClient.setQueryData(appKeys.detail(app.slug), app);
      await queryClient.invalidateQueries({ queryKey: appKeys.lists() });
    },
  });
}
