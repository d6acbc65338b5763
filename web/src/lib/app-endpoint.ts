import type { Application } from '@tollbooth/contract';

/** The gateway path shown on the detail page: completion-messages for prompts, chat-messages for workflows. */
export function appEndpointPath(app: Pick<Application, 'slug' | 'type'>): string {
  const action = app.type === 'prompt' ? 'completion-messages' : 'chat-messages';
  return `/api/app/${app.slug}/${action}`;
}

/** Where the Manage (or Edit) action of an application leads. */
export function manageLink(app: Pick<Application, 'slug' | 'type'>): { to: string; label: 'Manage' | 'Edit' } {
  if (app.type === 'prompt') return { to: `/prompts/${app.slug}`, label: 'Manage' };
  if (app.type === 'workflow') return { to: `/workflows/${app.slug}`, label: 'Manage' };
  return { to: `/applications/${app.slug}`, label: 'Edit' };
}

export const analyticsLink = (slug: string) => `/applications/${slug}/analytics`;
