// The app and its active prompt configuration, cached per process for a second: a paid call then
// needs no lookup for them. Changes made through this process invalidate at once; another
// process sees them within CALL_TARGET_TTL_MS (config.ts). API keys are cached apart, with
// invalidation from every process (keys/service.ts).
import type { PromptConfig } from '@tollbooth/contract';
import type { AppRow } from '../apps/service.ts';
import { CALL_TARGET_TTL_MS } from '../config.ts';

const MAX_ENTRIES = 10_000;

export interface CallTarget {
  app: AppRow;
  /** Null for apps that are not prompt apps. */
  config: PromptConfig | null;
}

export function createCallTargetCache(ttlMs = CALL_TARGET_TTL_MS) {
  const entries = new Map<string, { target: CallTarget; expiresAt: number }>();
  return {
    async get(slug: string, load: () => Promise<CallTarget | null>): Promise<CallTarget | null> {
      const now = Date.now();
      const cached = entries.get(slug);
      if (cached && cached.expiresAt > now) return cached.target;
      const target = await load();
      if (target) {
        if (entries.size >= MAX_ENTRIES) entries.clear();
        entries.set(slug, { target, expiresAt: now + ttlMs });
      } else entries.delete(slug);
      return target;
    },
    /** Forget an app (by slug or id) after it changed. */
    invalidate(key: { slug?: string; appId?: string }) {
      if (key.slug) entries.delete(key.slug);
      if (key.appId) for (const [slug, entry] of entries) if (entry.target.app.id === key.appId) entries.delete(slug);
    },
  };
}

export type CallTargetCache = ReturnType<typeof createCallTargetCache>;
