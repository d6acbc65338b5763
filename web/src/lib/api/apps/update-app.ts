import type { Application, ApplicationUpdate } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { appPath } from './app-keys';
import { useAppMutation } from './app-mutation';

/** PATCH /api/app/{slug}/ */
export function updateApp({ slug, changes }: { slug: string; changes: ApplicationUpdate }): Promise<Application> {
  return api.patch<Application>(appPath(slug), changes, { auth: 'required' });
}

export const useUpdateApp = () => useAppMutation(updateApp);
