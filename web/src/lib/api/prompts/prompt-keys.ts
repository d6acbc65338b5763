import { appKeys, appPath } from '@/lib/api/apps/app-keys';

// Prompt configurations hang under their application's detail key, so refreshing or dropping an
// application's queries takes its prompt configuration along.
export const promptKeys = {
  config: (slug: string) => [...appKeys.detail(slug), 'prompt'] as const,
};

/** /app/{slug}/prompt/ */
export const promptPath = (slug: string) => `${appPath(slug)}prompt/`;
