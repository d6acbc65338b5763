import { appKeys, appPath } from '@/lib/api/apps/app-keys';

// A workflow configuration and its versions hang under their application's detail key, so
// refreshing or dropping an application's queries takes them along.
export const workflowKeys = {
  providers: () => ['workflow-providers'] as const,
  config: (slug: string) => [...appKeys.detail(slug), 'workflow'] as const,
  versions: (slug: string) => [...appKeys.detail(slug), 'workflow-versions'] as const,
};

/** /app/{slug}/workflow/ */
export const workflowPath = (slug: string) => `${appPath(slug)}workflow/`;

/** /workflows/{id}/versions/ (the id may be the app's id or its slug) */
export const workflowVersionsPath = (idOrSlug: string) => `/workflows/${encodeURIComponent(idOrSlug)}/versions/`;
