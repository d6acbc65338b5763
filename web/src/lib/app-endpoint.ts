import type { Application } from '@tollbooth/contract';

/** The endpoint calls to the app take: chat-messages for a chat app, completion-messages otherwise. */
export function appCallMode(app: Pick<Application, 'interaction_mode' | 'call_mode'>): 'chat' | 'completion' {
  return app.call_mode ?? app.interaction_mode;
}

/** The gateway path shown on the detail page and the console: the route the app's mode takes (as Explore shows it). */
export function appEndpointPath(app: Pick<Application, 'slug' | 'interaction_mode' | 'call_mode'>): string {
  const action = appCallMode(app) === 'chat' ? 'chat-messages' : 'completion-messages';
  return `/api/app/${app.slug}/${action}`;
}

/** Where the Manage (or Edit) action of an application leads. */
export function manageLink(app: Pick<Application, 'slug' | 'type'>): { to: string; label: 'Manage' | 'Edit' } {
  if (app.type === 'prompt') return { to: `/prompts/${app.slug}`, label: 'Manage' };
  if (app.type === 'workflow') return { to: `/workflows/${app.slug}`, label: 'Manage' };
  return { to: `/applications/${app.slug}`, label: 'Edit' };
}

export const analyticsLink = (slug: string) => `/applications/${slug}/analytics`;
