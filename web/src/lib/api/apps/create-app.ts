import type { Application, ApplicationCreate } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { useAppMutation } from './app-mutation';

/** POST /api/app/ */
export function createApp(body: ApplicationCreate): Promise<Application> {
  return api.post<Application>('/app/', body, { auth: 'required' });
}

export const useCreateApp = () => useAppMutation(createApp);
