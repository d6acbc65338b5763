// Cross-process invalidation of per-process caches. Triggers (migration 0018) NOTIFY channel
// tollbooth_invalidate with '<kind>:<id>' at the commit of every change that matters, whichever
// process or statement made it; each process LISTENs on one connection and forgets what changed.
//
// A cache built on this is only as trustworthy as the subscription: while it is down (the
// connection was lost) every read goes to the database, and on reconnect everything is forgotten.
// A load that was in flight when any invalidation arrived is not stored (its row may predate the
// change): `track()` and `stillCurrent()` implement that check.
import type { Database, Subscription } from './client.ts';

export const INVALIDATION_CHANNEL = 'tollbooth_invalidate';

export type InvalidationKind = 'key' | 'user' | 'subscriber' | 'credentials';
const KINDS: ReadonlySet<string> = new Set<InvalidationKind>(['key', 'user', 'subscriber', 'credentials']);

export interface InvalidationBus {
  /** True while notifications arrive: only then may a cache answer from memory. */
  live(): boolean;
  /** Calls fn(id) for every change of that kind; fn(null) means "forget everything". */
  on(kind: InvalidationKind, fn: (id: string | null) => void): void;
  /** A change made by this process: forgets it here at once (others hear of it by NOTIFY). */
  invalidate(kind: InvalidationKind, id: string): void;
  /** A token taken before a load; stillCurrent(token) says whether nothing was invalidated since. */
  track(): number;
  stillCurrent(token: number): boolean;
  close(): Promise<void>;
}

export async function createInvalidationBus(db: Database): Promise<InvalidationBus> {
  const handlers = new Map<InvalidationKind, ((id: string | null) => void)[]>();
  let generation = 0;
  const dispatch = (kind: InvalidationKind | null, id: string | null) => {
    generation += 1;
    for (const [handlerKind, fns] of handlers) {
      if (kind === null || kind === handlerKind) for (const fn of fns) fn(id);
    }
  };
  const subscription: Subscription = await db.listen(INVALIDATION_CHANNEL, {
    onNotify(payload) {
      const colon = payload.indexOf(':');
      const kind = payload.slice(0, colon) as InvalidationKind;
      // An unknown message (a newer version's kind): forget everything rather than keep something stale.
      if (colon < 1 || !KINDS.has(kind)) dispatch(null, null);
      else dispatch(kind, payload.slice(colon + 1));
    },
    onReset: () => dispatch(null, null),
  });
  return {
    live: () => subscription.live(),
    on(kind, fn) {
      const list = handlers.get(kind) ?? [];
      list.push(fn);
      handlers.set(kind, list);
    },
    invalidate: (kind, id) => dispatch(kind, id),
    track: () => generation,
    stillCurrent: (token) => token === generation,
    close: () => subscription.close(),
  };
}
