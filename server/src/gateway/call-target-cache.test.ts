import { describe, expect, it } from 'vitest';
import type { AppRow } from '../apps/queries.ts';
import { createCallTargetCache } from './call-target-cache.ts';

const app = (id: string) => ({ id, slug: `slug-${id}` }) as AppRow;

describe('call target cache', () => {
  it('loads once within the TTL, again after it, and forgets on invalidation by slug or app id', async () => {
    const cache = createCallTargetCache(40);
    let loads = 0;
    const load = async () => {
      loads++;
      return { app: app('a'), config: null };
    };
    await cache.get('slug-a', load);
    await cache.get('slug-a', load);
    expect(loads).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await cache.get('slug-a', load);
    expect(loads).toBe(2);
    cache.invalidate({ slug: 'slug-a' });
    await cache.get('slug-a', load);
    expect(loads).toBe(3);
    cache.invalidate({ appId: 'a' });
    await cache.get('slug-a', load);
    expect(loads).toBe(4);
  });

  it('does not cache a missing app', async () => {
    const cache = createCallTargetCache();
    let loads = 0;
    const load = async () => {
      loads++;
      return null;
    };
    expect(await cache.get('nope', load)).toBeNull();
    expect(await cache.get('nope', load)).toBeNull();
    expect(loads).toBe(2);
  });
});
