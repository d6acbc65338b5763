import type { Application } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { appPath } from './app-keys';
import { useAppMutation } from './app-mutation';

/** POST /api/app/{slug}/duplicate/ — a draft copy with a new slug (201). */
export function duplicateApp(slug: string): Promise<Application> {
  return api.post<Application>(`${appPath(slug)}duplicate/`, undefined, { auth: 'required' });
}

export const useDuplicateApp = () => useAppMutation(duplicateApp);
