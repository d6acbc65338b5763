import type { Application, AppStatus } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { appPath } from './app-keys';
import { useAppMutation } from './app-mutation';

/** PATCH /api/app/{slug}/update_status/ */
export function updateAppStatus({ slug, status }: { slug: string; status: AppStatus }): Promise<Application> {
  return api.patch<Application>(`${appPath(slug)}update_status/`, { status }, { auth: 'required' });
}

export const useUpdateAppStatus = () => useAppMutation(updateAppStatus);
