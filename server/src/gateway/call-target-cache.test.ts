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

  it('shares one load among the calls that miss together, and a failed load with all of them', async () => {
    const cache = createCallTargetCache(1000);
    let loads = 0;
    let finish!: (target: { app: AppRow; config: null } | null) => void;
    const load = () => {
      loads++;
      return new Promise<{ app: AppRow; config: null } | null>((resolve) => {
        finish = resolve;
      });
    };
    const calls = Array.from({ length: 50 }, () => cache.get('slug-a', load));
    expect(loads).toBe(1);
    finish({ app: app('a'), config: null });
    for (const target of await Promise.all(calls)) expect(target?.app.id).toBe('a');
    await cache.get('slug-a', load);
    expect(loads).toBe(1);

    const failing = createCallTargetCache(1000);
    let failures = 0;
    const broken = async () => {
      failures++;
      await new Promise((resolve) => setTimeout(resolve, 10));
      throw new Error('database down');
    };
    const results = await Promise.allSettled([failing.get('slug-b', broken), failing.get('slug-b', broken)]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(failures).toBe(1);
    // Nothing is kept from a failure: the next call loads again.
    await expect(failing.get('slug-b', broken)).rejects.toThrow('database down');
    expect(failures).toBe(2);
  });

  it('reloads in the last quarter of an entry while still answering from it, and never serves it after its TTL', async () => {
    let time = 0;
    const cache = createCallTargetCache(200, () => time);
    let loads = 0;
    let release = () => {};
    const load = async () => {
      const version = ++loads;
      if (version > 1) await new Promise<void>((resolve) => (release = resolve));
      return { app: { ...app('a'), name: `v${version}` } as AppRow, config: null };
    };
    expect((await cache.get('slug-a', load))?.app.name).toBe('v1');
    time = 170;
    // In the last quarter: answered from the entry at once, the reload runs behind it (once).
    expect((await cache.get('slug-a', load))?.app.name).toBe('v1');
    expect((await cache.get('slug-a', load))?.app.name).toBe('v1');
    expect(loads).toBe(2);
    time = 230;
    // Expired while the reload is still reading: the call waits for it rather than getting the old entry.
    const waiting = cache.get('slug-a', load);
    release();
    expect((await waiting)?.app.name).toBe('v2');
    expect(loads).toBe(2);
  });

  it('keeps nothing a load read when the app changed while it ran', async () => {
    const cache = createCallTargetCache(1000);
    let loads = 0;
    let finish!: () => void;
    const load = async () => {
      const version = ++loads;
      if (version === 1) await new Promise<void>((resolve) => (finish = resolve));
      return { app: { ...app('a'), name: `v${version}` } as AppRow, config: null };
    };
    const before = cache.get('slug-a', load);
    cache.invalidate({ appId: 'a' });
    finish();
    // The call that started before the change gets what it read; the next call reads again.
    expect((await before)?.app.name).toBe('v1');
    expect((await cache.get('slug-a', load))?.app.name).toBe('v2');
    expect((await cache.get('slug-a', load))?.app.name).toBe('v2');
    expect(loads).toBe(2);
  });
});
