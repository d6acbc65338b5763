// A database whose statements pass through a test's hook first, as a row lock, a slow server or a
// dead process would shape them: the hook may wait (its promise), throw, or answer in the
// statement's place (a result it returns). Everything else goes to the database as it is.
import type { Database } from '../db/client.ts';

export type QueryHook = (sql: string, params: readonly unknown[] | undefined) => undefined | Promise<unknown> | unknown;

export function interceptedDatabase(db: Database, hook: QueryHook): Database {
  return {
    ...db,
    kind: db.kind,
    query: (async (sql: string, params?: readonly unknown[]) => {
      const answer = await hook(sql, params);
      return answer === undefined ? db.query(sql, params) : answer;
    }) as Database['query'],
    exec: (sql) => db.exec(sql),
    transaction: (fn) => db.transaction(fn),
    listen: (channel, handlers) => db.listen(channel, handlers),
    close: () => db.close(),
  };
}
