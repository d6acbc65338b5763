import { describe, expect, it } from 'vitest';
import { routeTitle } from './route-titles';

describe('routeTitle', () => {
  it('gives every screen its own title', () => {
    const paths = [
      '/',
      '/login',
      '/register',
      '/dashboard',
      '/applications',
      '/applications/create',
      '/applications/a',
      '/applications/a/edit',
      '/applications/a/analytics',
      '/applications/a/billing',
      '/analytics',
      '/profile',
      '/prompt-builder',
      '/prompts',
      '/prompts/a',
      '/workflows',
      '/workflows/a',
      '/money',
      '/api-test',
      '/terms',
      '/privacy',
      '/billing/success',
      '/nowhere',
    ];
    const titles = paths.map((path) => routeTitle(path, 'Tollbooth'));
    expect(new Set(titles).size).toBe(paths.length);
    expect(titles.every((title) => title.endsWith(' · Tollbooth'))).toBe(true);
  });

  it('matches the create page before an application called "create"', () => {
    expect(routeTitle('/applications/create', 'Tollbooth')).toBe('Create Application · Tollbooth');
    expect(routeTitle('/applications/haiku', 'Acme')).toBe('haiku · Application · Acme');
  });
});
