// Where analytics, catalog, statement and list reads go (db/reads.ts, decision 0130): the router on
// the app (app.reads), the replica of DATABASE_READ_URL opened and closed with it, and the hook that
// records a signed-in user's write position so their own changes are never read stale.
import type { FastifyInstance } from 'fastify';
import { type Database, openPostgres } from '../db/client.ts';
import { createReadRouter, type ReadRouter, recordWritePosition } from '../db/reads.ts';
import type { Config } from '../platform/config.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Where analytics, catalog, statement and list reads go (db/reads.ts, decision 0130). With a replica,
 * every changing request of a signed-in user (and a user's first request, which may create them)
 * records the primary's WAL position before its answer is sent, so the user's next read, on any
 * process, waits for the replica to reach it or goes to the primary. Paid calls record nothing.
 */
export async function registerReads(
  app: FastifyInstance,
  { config, db, readReplica }: { config: Config; db: Database; readReplica: Database | null | undefined },
): Promise<ReadRouter> {
  const opened =
    readReplica === undefined && config.databaseReadUrl !== null
      ? await openPostgres(config.databaseReadUrl, 30, { prepare: config.databasePoolMode !== 'transaction' })
      : null;
  const replica = readReplica ?? opened;
  if (opened) app.addHook('onClose', () => opened.close());
  let warnedAt = 0;
  const reads = createReadRouter({
    primary: db,
    replica,
    statementTimeoutMs: config.readStatementTimeoutMs,
    onReplicaError: (error) => {
      // At most one line a minute: a replica that is down fails every read until it is back.
      if (Date.now() - warnedAt < 60_000) return;
      warnedAt = Date.now();
      app.log.warn({ err: error }, 'DATABASE_READ_URL: the replica failed a read; reads go to the primary until it answers');
    },
  });
  app.decorate('reads', reads);
  if (replica) {
    app.addHook('onSend', async (request, _reply, payload) => {
      const auth = request.auth;
      if (!auth || auth.apiKey || request.routeOptions.config.paidCall) return payload;
      if (SAFE_METHODS.has(request.method) && auth.user.written_lsn) return payload;
      try {
        await recordWritePosition(db, auth.user.id);
      } catch (error) {
        request.log.error({ err: error }, 'recording the write position for replica reads failed');
      }
      return payload;
    });
  }
  return reads;
}
