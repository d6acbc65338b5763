import type { Application, AppStatus, AppType, Visibility } from '@tollbooth/contract';

export interface AppFilterValues {
  /** '' means All. */
  visibility: Visibility | '';
  status: AppStatus | '';
}

/** The list screens fetch every application and filter on the client: by type, then visibility and status. */
export function filterApps(apps: readonly Application[], type: AppType, filters: AppFilterValues): Application[] {
  return apps.filter(
    (app) => app.type === type && (!filters.visibility || app.visibility === filters.visibility) && (!filters.status || app.status === filters.status),
  );
}
