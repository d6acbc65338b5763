// Keeps the time-partitioned history (migration 0043, decision 0105): month partitions of the
// tables that grow with every call are created ahead, and with RETENTION_DAYS those whose every row
// is older are dropped whole (no row-by-row delete, no bloat). Run at start and then daily; several
// processes may run it together (the SQL functions take an advisory lock per table).
import type { Database } from './client.ts';

/** The partitioned tables of call detail. Rollups, ledger and statements are other tables: retention leaves them. */
export const HISTORY_TABLES = ['invocations', 'test_runs'] as const;
/** Months ahead of now that partitions exist for (a row beyond them lands in the default partition). */
const MONTHS_AHEAD = 2;
const DAY_MS = 86_400_000;

export interface KeptPartitions {
  created: number;
  dropped: string[];
}

/**
 * Creates the month partitions up to MONTHS_AHEAD months past `now` and, with retentionDays, drops
 * those that ended before now − retentionDays. Waits at most a second for a table's lock (dropping a
 * partition locks its parent, and calls queue behind a lock that waits for a long read): what it
 * could not do it does at the next run.
 */
export async function keepHistoryPartitions(
  db: Database,
  { retentionDays, now = new Date() }: { retentionDays: number | null; now?: Date },
): Promise<KeptPartitions> {
  const kept: KeptPartitions = { created: 0, dropped: [] };
  const until = new Date(now.getTime());
  until.setUTCMonth(until.getUTCMonth() + MONTHS_AHEAD);
  for (const table of HISTORY_TABLES) {
    await db.transaction(async (tx) => {
      if (db.kind === 'postgres') await tx.query(`SET LOCAL lock_timeout = '1s'`);
      const { rows } = await tx.query<{ made: number }>('SELECT history_keep_partitions($1, $2::timestamptz) AS made', [table, until.toISOString()]);
      kept.created += Number(rows[0]?.made ?? 0);
      if (retentionDays !== null) {
        const before = new Date(now.getTime() - retentionDays * DAY_MS).toISOString();
        const dropped = await tx.query<{ name: string }>('SELECT history_drop_partitions($1, $2::timestamptz) AS name', [table, before]);
        kept.dropped.push(...dropped.rows.map((row) => row.name));
      }
    });
  }
  return kept;
}

/** Runs keepHistoryPartitions now and every day until stopped; failures are logged and retried at the next run. */
export function startHistoryKeeper(
  db: Database,
  {
    retentionDays,
    log,
    everyMs = DAY_MS,
  }: { retentionDays: number | null; log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void }; everyMs?: number },
): { ran: Promise<void>; stop(): void } {
  const run = async () => {
    try {
      const kept = await keepHistoryPartitions(db, { retentionDays });
      if (kept.created > 0 || kept.dropped.length > 0) log.info(kept, 'history partitions kept');
    } catch (error) {
      log.error({ err: error }, 'keeping the history partitions failed (retried at the next run)');
    }
  };
  const ran = run();
  const timer = setInterval(() => void run(), everyMs);
  timer.unref();
  return { ran, stop: () => clearInterval(timer) };
}
