// Reads that may go to a read replica (DATABASE_READ_URL, decision 0130), each statement with a
// statement timeout (READ_STATEMENT_TIMEOUT_MS).
//
// Analytics, the catalog, closed months' statements and lists are read through `reads.as(reader)`;
// money (balances, the ledger behind a charge, holds) and every write use the primary, as before.
// A reader is the signed-in user with `written_lsn`: the primary's WAL insert position recorded after
// that user's last change (recordWritePosition, after every changing request, before its answer is
// sent; kept in `user_write_positions` and read with the user on each request). A reader's statements
// go to the replica only when the replica has replayed past that position
// (pg_last_wal_replay_lsn() >= written_lsn, asked once per `as()`), else to the primary: a creator's
// own change is never shown stale, however far the replica lags, and other people's reads (anonymous
// catalog visitors, users who changed nothing lately) stay on the replica.
//
// Every statement runs in its own READ ONLY transaction that first sets `SET LOCAL statement_timeout`
// (and turns JIT compilation off),
// on either database (PGlite accepts the setting but has no timer to enforce it: the bounds on the
// request's range and limit are what hold there). A replica that cannot answer (connection lost, a
// query cancelled for a conflict with recovery) is retried once on the primary.
import type { Database, Queryable, QueryResult } from './client.ts';

/** Who reads: a signed-in user (with the WAL position of their last change, null when none is recorded), or null for anyone. */
export interface Reader {
  id: string;
  written_lsn?: string | null;
}

export type ReadTarget = 'replica' | 'primary';

export interface Reads extends Queryable {
  /** The primary's kind: a replica is always PostgreSQL, so 'pglite' means no replica and no cursor worth holding. */
  readonly kind: Database['kind'];
  /** Where this reader's statements go (decided on the first statement, then kept). */
  target(): Promise<ReadTarget>;
  /**
   * Every row of `sql` through a cursor, `batchRows` at a time, in one READ ONLY transaction: each
   * FETCH is one statement under the timeout and only one batch is held at a time; `onRows` is
   * awaited before the next FETCH (a slow client slows the reading, never grows memory).
   */
  eachBatch<Row>(sql: string, params: readonly unknown[], batchRows: number, onRows: (rows: Row[]) => Promise<void>): Promise<void>;
}

export interface ReadCounters {
  /** Statements run on the replica. */
  replica: number;
  /** Statements run on the primary (no replica, a reader the replica has not caught up with, or a retry). */
  primary: number;
  /** Readers sent to the primary because the replica had not replayed their last change. */
  behind: number;
  /** Replica statements that failed and were retried on the primary. */
  retried: number;
}

export interface ReadRouter {
  /** True when a replica is configured. */
  readonly replicated: boolean;
  /** The reads of one request by `reader` (null: someone not signed in). */
  as(reader: Reader | null | undefined): Reads;
  /** Reads that must see the primary (still read only and under the timeout). */
  readonly primary: Reads;
  readonly counters: ReadCounters;
}

/** SQLSTATEs after which a replica statement is tried again on the primary. */
const RETRY_ON_PRIMARY = new Set(['40001', '57P01', '57P02', '57P03', '53300']);
const SQLSTATE = /^[0-9A-Z]{5}$/;
const retryable = (error: unknown) => {
  const code = (error as { code?: unknown }).code;
  // No SQLSTATE (none, or a socket's ECONNREFUSED, ETIMEDOUT…): the connection failed, not the statement.
  if (typeof code !== 'string' || !SQLSTATE.test(code)) return true;
  return RETRY_ON_PRIMARY.has(code) || code.startsWith('08');
};

/**
 * One cursor name for every export: a cursor lives in its transaction, which holds its connection, and
 * the DECLARE's text stays constant, so it is prepared once per connection like any other statement
 * (a name per export would prepare, and keep, a new statement each time).
 */
const CURSOR = 'tb_reads_cursor';

/** READ_STATEMENT_TIMEOUT_MS's default, for services built without a router (tests). */
export const DEFAULT_READ_TIMEOUT_MS = 5000;

export function createReadRouter({
  primary,
  replica = null,
  statementTimeoutMs,
  onReplicaError,
}: {
  primary: Database;
  replica?: Database | null;
  statementTimeoutMs: number;
  /** Told of each replica failure that sent a statement to the primary (logged by app.ts). */
  onReplicaError?: (error: unknown) => void;
}): ReadRouter {
  const counters: ReadCounters = { replica: 0, primary: 0, behind: 0, retried: 0 };
  // No JIT compilation: these are short index reads, and a prepared statement's generic plan can be
  // costed past jit_above_cost by a branch it seldom runs (the dashboard's unique users with deleted
  // apps), so every call paid ~15 ms of compiling for a 3 ms query (Scale bench at 100M, 2026-12-07).
  const settings = `SET TRANSACTION READ ONLY; SET LOCAL statement_timeout = ${Math.trunc(statementTimeoutMs)}; SET LOCAL jit = off`;

  const inReadTransaction = <T>(db: Database, fn: (tx: Queryable) => Promise<T>): Promise<T> =>
    db.transaction(async (tx) => {
      await tx.exec(settings);
      return fn(tx);
    });

  const onTarget = async <T>(target: ReadTarget, fn: (tx: Queryable) => Promise<T>): Promise<T> => {
    if (target === 'replica' && replica) {
      try {
        const result = await inReadTransaction(replica, fn);
        counters.replica++;
        return result;
      } catch (error) {
        if (!retryable(error)) throw error;
        counters.retried++;
        onReplicaError?.(error);
      }
    }
    const result = await inReadTransaction(primary, fn);
    counters.primary++;
    return result;
  };

  const decide = async (reader: Reader | null | undefined): Promise<ReadTarget> => {
    if (!replica) return 'primary';
    const position = reader?.written_lsn ?? null;
    if (position === null) return 'replica';
    try {
      // NULL when the "replica" is not in recovery (a primary, or promoted): then only the primary is sure.
      const { rows } = await replica.query<{ caught_up: boolean | null }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS caught_up', [position]);
      if (rows[0]?.caught_up === true) return 'replica';
    } catch (error) {
      onReplicaError?.(error);
      return 'primary';
    }
    counters.behind++;
    return 'primary';
  };

  const readsOf = (choose: () => Promise<ReadTarget>): Reads => {
    let decided: Promise<ReadTarget> | null = null;
    const target = () => {
      decided ??= choose();
      return decided;
    };
    return {
      kind: primary.kind,
      target,
      async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
        return onTarget(await target(), (tx) => tx.query<Row>(sql, params));
      },
      async exec() {
        throw new Error('reads run no statements without results: write through the primary database');
      },
      async eachBatch<Row>(sql: string, params: readonly unknown[], batchRows: number, onRows: (rows: Row[]) => Promise<void>) {
        const rows = Math.max(1, Math.trunc(batchRows));
        // Not retried on the primary: rows may have been sent already.
        const db = (await target()) === 'replica' && replica ? replica : primary;
        await inReadTransaction(db, async (tx) => {
          await tx.query(`DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${sql}`, params);
          for (;;) {
            const batch = await tx.query<Row>(`FETCH ${rows} FROM ${CURSOR}`);
            if (batch.rows.length > 0) await onRows(batch.rows);
            if (batch.rows.length < rows) break;
          }
        });
        counters[db === replica ? 'replica' : 'primary']++;
      },
    };
  };

  return {
    replicated: replica !== null,
    as: (reader) => readsOf(() => decide(reader)),
    primary: readsOf(async () => 'primary'),
    counters,
  };
}

/**
 * Remembers the primary's WAL insert position for `userId` after a change of theirs was committed:
 * a later read of theirs waits for the replica to reach it (or goes to the primary). Insert position,
 * not flush: it is past every commit record already inserted, whatever synchronous_commit says.
 */
export async function recordWritePosition(db: Queryable, userId: string): Promise<void> {
  await db.query(
    `INSERT INTO user_write_positions (user_id, written_lsn) VALUES ($1, pg_current_wal_insert_lsn())
     ON CONFLICT (user_id) DO UPDATE SET written_lsn = greatest(user_write_positions.written_lsn, excluded.written_lsn)`,
    [userId],
  );
}
