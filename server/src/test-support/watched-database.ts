// A database as another process would hold it, for tests of per-process caches: every statement
// is shown to onQuery first (to count reads), and `live: false` stands for a process whose
// listening connection is down (db/invalidation.ts then trusts nothing).
import type { Database } from '../db/client.ts';

export function watchedDatabase(db: Database, { onQuery, live = true }: { onQuery: (sql: string) => void; live?: boolean }): Database {
  return {
    kind: db.kind,
    query: ((sql: string, params?: readonly unknown[]) => {
      onQuery(sql);
      return db.query(sql, params);
    }) as Database['query'],
    exec: (sql) => db.exec(sql),
    transaction: (fn) => db.transaction(fn),
    listen: async (channel, handlers) => {
      const subscription = await db.listen(channel, handlers);
      return { live: () => live && subscription.live(), close: () => subscription.close() };
    },
    close: () => db.close(),
  };
}
