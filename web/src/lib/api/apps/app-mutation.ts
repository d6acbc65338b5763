import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Application } from '@tollbooth/contract';
import { appKeys } from './app-keys';

/** A change that answers the app (create, update, status, duplicate): its detail is cached as answered and the lists are read again. */
export function useAppMutation<Input>(mutationFn: (input: Input) => Promise<Application>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: async (app) => {
      queryClient.setQueryData(appKeys.detail(app.slug), app);
      await queryClient.invalidateQueries({ queryKey: appKeys.lists() });
    },
  });
}
