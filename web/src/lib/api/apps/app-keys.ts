// The query-key factory for applications: every list, detail and usage query hangs under ['apps'],
// so one invalidation of `appKeys.all` refreshes them all.
export const appKeys = {
  all: ['apps'] as const,
  lists: () => [...appKeys.all, 'list'] as const,
  details: () => [...appKeys.all, 'detail'] as const,
  detail: (slug: string) => [...appKeys.details(), slug] as const,
  usages: () => [...appKeys.all, 'usage'] as const,
  usage: (slug: string) => [...appKeys.usages(), slug] as const,
};

/** A slug as a path segment. */
export const appPath = (slug: string) => `/app/${encodeURIComponent(slug)}/`;
