// The app and its active prompt configuration, cached per process for a second: a paid call then
// needs no lookup for them. Changes made through this process invalidate at once; another
// process sees them within CALL_TARGET_TTL_MS (config.ts). API keys are cached apart, with
// invalidation from every process (keys/service.ts).
//
// One load per slug at a time: the calls that miss together share it. Before, every call that
// arrived while an expired entry was being read ran its own two lookups (at 50 connections about
// one call in ten: 0.11 statements per paid call, as many as the credit leases). A call in the
// last quarter of an entry's life also starts its reload in the background, and is still answered
// from the entry, which has not expired: the next second's calls find the new one without waiting.
// An entry is never served after its TTL (docs/decisions/0040-half-the-cpu-per-paid-call.md).
import type { PromptConfig } from '@tollbooth/contract';
import type { AppRow } from '../apps/service.ts';
import { CALL_TARGET_TTL_MS } from '../platform/config.ts';

const MAX_ENTRIES = 10_000;

export interface CallTarget {
  app: AppRow;
  /** Null for apps that are not prompt apps. */
  config: PromptConfig | null;
}

/** `clock` is for tests. */
export function createCallTargetCache(ttlMs = CALL_TARGET_TTL_MS, clock: () => number = Date.now) {
  const entries = new Map<string, { target: CallTarget; expiresAt: number }>();
  /** The load under way per slug; an invalidation drops it, so what it read is not kept. */
  const loading = new Map<string, Promise<CallTarget | null>>();

  const startLoad = (slug: string, load: (slug: string) => Promise<CallTarget | null>) => {
    const startedAt = clock();
    const pending = load(slug).then(
      (target) => {
        // Invalidated (or replaced) while it read: answer the calls that waited for it, keep nothing.
        if (loading.get(slug) !== pending) return target;
        loading.delete(slug);
        if (target) {
          if (entries.size >= MAX_ENTRIES) entries.clear();
          entries.set(slug, { target, expiresAt: startedAt + ttlMs });
        } else entries.delete(slug);
        return target;
      },
      (error: unknown) => {
        if (loading.get(slug) === pending) loading.delete(slug);
        throw error;
      },
    );
    loading.set(slug, pending);
    return pending;
  };

  return {
    /** `load` reads the slug's target on a miss: one function for every slug, not one per call. */
    async get(slug: string, load: (slug: string) => Promise<CallTarget | null>): Promise<CallTarget | null> {
      const now = clock();
      const cached = entries.get(slug);
      if (cached && cached.expiresAt > now) {
        // Reloaded ahead of expiry; a failed reload leaves the entry to expire and the next miss to load.
        if (cached.expiresAt - now < ttlMs / 4 && !loading.has(slug)) startLoad(slug, load).catch(() => {});
        return cached.target;
      }
      return loading.get(slug) ?? startLoad(slug, load);
    },
    /** Forget an app (by slug or id) after it changed. */
    invalidate(key: { slug?: string; appId?: string }) {
      if (key.slug) {
        entries.delete(key.slug);
        loading.delete(key.slug);
      }
      if (key.appId)
        for (const [slug, entry] of entries)
          if (entry.target.app.id === key.appId) {
            entries.delete(slug);
            loading.delete(slug);
          }
      // A load under way for this app under a slug not cached yet: nothing tells its slug from here, so every load is dropped.
      if (key.appId) loading.clear();
    },
  };
}

export type CallTargetCache = ReturnType<typeof createCallTargetCache>;
