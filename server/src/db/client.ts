// One small database interface over two drivers: embedded PGlite (default) and node-postgres
// (DATABASE_URL). Both speak the same PostgreSQL dialect, so queries and migrations are shared.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number;
}

export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>>;
  /** Runs several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/** The first row a statement answers, or null when it answers none. */
export async function firstRow<Row>(q: Queryable, sql: string, params?: readonly unknown[]): Promise<Row | null> {
  const { rows } = await q.query<Row>(sql, params);
  return rows[0] ?? null;
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs fn inside BEGIN/COMMIT on one connection; any throw rolls back. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * LISTENs on a channel: onNotify gets each NOTIFY payload (from any process, after its commit).
   * onReset runs whenever notifications may have been missed (the connection was lost); until
   * the subscription is live again, `live()` is false and a cache built on it must not be trusted.
   */
  listen(channel: string, handlers: { onNotify: (payload: string) => void; onReset: () => void }): Promise<Subscription>;
  close(): Promise<void>;
  /** node-postgres only: the pool's connections (all, idle) and the queries waiting for one (metrics, issue 58). */
  poolStats?(): { total: number; idle: number; waiting: number };
}

export interface Subscription {
  /** True while notifications are being received. */
  live(): boolean;
  close(): Promise<void>;
}

// int8 and numeric come back as JS numbers: amounts are integer cents, far below 2^53.
const INT8 = 20;
const NUMERIC = 1700;
const DATE = 1082;
const toNumber = (value: string) => {
  const n = Number(value);
  if (!Number.isSafeInteger(n) && Number.isInteger(n)) throw new Error(`integer out of safe range: ${value}`);
  return n;
};
const parsers: Record<number, (value: string) => unknown> = {
  [INT8]: toNumber,
  [NUMERIC]: Number,
  [DATE]: (value: string) => value,
};

/**
 * The embedded database in `dataDir` (in memory when null). `loadDataDir`: start an in-memory one
 * from a dump of another (tests: one migrated database dumped per run, test-support/database.ts).
 */
export async function openPglite(dataDir: string | null, { loadDataDir }: { loadDataDir?: Blob } = {}): Promise<Database> {
  if (!dataDir) return wrapPglite(await PGlite.create({ parsers, loadDataDir }));
  mkdirSync(dataDir, { recursive: true });
  const directory = path.join(dataDir, 'pglite');
  if (!existsSync(path.join(directory, 'PG_VERSION'))) {
    // A new database: PGlite runs initdb, whose WebAssembly memory it keeps for its whole life
    // (a first start held 1.1 GB against 0.6 GB for a restart, bench/startup). Closing it and
    // opening the files it wrote costs about a second, once.
    await (await PGlite.create(directory, { parsers })).close();
  }
  return wrapPglite(await PGlite.create(directory, { parsers }));
}

/** A PGlite instance as a Database (the caller may still use the instance itself, e.g. to dump it). */
export function wrapPglite(db: PGlite): Database {
  const wrap = (q: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      const result = await q.query<Row>(sql, params as unknown[]);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
  });
  return {
    kind: 'pglite',
    ...wrap(db),
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    // Embedded: one process, one connection, nothing is ever missed.
    async listen(channel, { onNotify }) {
      const unlisten = await db.listen(channel, onNotify);
      let open = true;
      return {
        live: () => open,
        async close() {
          open = false;
          await unlisten();
        },
      };
    },
    close: () => db.close(),
  };
}

/**
 * Parameterised queries run as named prepared statements, one name per SQL text: each connection
 * plans a statement once instead of on every call (planning the batched settlement alone costs
 * about a millisecond). Our SQL texts are constants, so the set of names stays small.
 */
const statementNames = new Map<string, string>();
function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (!name) {
    name = `tb_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    statementNames.set(sql, name);
  }
  return name;
}

export interface PostgresOptions {
  /**
   * Named prepared statements (default). Off behind a transaction pooler (PgBouncer before 1.21 has
   * no prepared statements in pool_mode=transaction: a name prepared on one server connection is
   * unknown on the next): every query is then parsed and planned each time, unnamed.
   */
  prepare?: boolean;
  /** Where LISTEN connects (a dedicated session): default connectionString; behind a transaction pooler, PostgreSQL itself. */
  listenUrl?: string;
}

export async function openPostgres(
  connectionString: string,
  max = 30,
  { prepare = true, listenUrl = connectionString }: PostgresOptions = {},
): Promise<Database> {
  const pool = new pg.Pool({
    connectionString,
    max,
    types: {
      getTypeParser: ((oid: number, format?: string) => parsers[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Queries in flight still reject.
  });
  const wrap = (q: pg.Pool | pg.PoolClient): Queryable => ({
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      const result =
        params.length === 0
          ? await q.query(sql)
          : prepare
            ? await q.query({ name: statementName(sql), text: sql, values: params as unknown[] })
            : await q.query(sql, params as unknown[]);
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
    },
    async exec(sql: string) {
      await q.query(sql);
    },
  });
  return {
    kind: 'postgres',
    ...wrap(pool),
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(wrap(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    listen: (channel, handlers) => listenPostgres(listenUrl, channel, handlers),
    close: () => pool.end(),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}

const RECONNECT_DELAY_MS = 1000;

/**
 * A dedicated connection (not from the pool) LISTENing on one channel. When it fails it reports a
 * reset and reconnects after a second, reporting a reset again once it listens again (what was
 * sent in between is lost).
 */
async function listenPostgres(
  connectionString: string,
  channel: string,
  { onNotify, onReset }: { onNotify: (payload: string) => void; onReset: () => void },
): Promise<Subscription> {
  let client: pg.Client | null = null;
  let live = false;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString });
    next.on('notification', (message) => {
      if (message.channel === channel) onNotify(message.payload ?? '');
    });
    const lost = () => {
      if (client !== next) return;
      client = null;
      live = false;
      onReset();
      next.end().catch(() => undefined);
      if (!closed) scheduleRetry();
    };
    next.on('error', lost);
    next.on('end', lost);
    await next.connect();
    client = next;
    await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    live = true;
    // Anything sent before LISTEN took effect is unknown: whoever caches must start afresh.
    onReset();
  };
  const scheduleRetry = () => {
    retry = setTimeout(() => {
      retry = null;
      connect().catch(() => {
        client?.end().catch(() => undefined);
        client = null;
        if (!closed) scheduleRetry();
      });
    }, RECONNECT_DELAY_MS);
    retry.unref();
  };

  await connect();
  return {
    live: () => live,
    async close() {
      closed = true;
      live = false;
      if (retry) clearTimeout(retry);
      const current = client;
      client = null;
      await current?.end().catch(() => undefined);
    },
  };
}

export function openDatabase(options: {
  databaseUrl: string | null;
  dataDir: string;
  databasePoolMode?: 'session' | 'transaction';
  databaseListenUrl?: string | null;
}): Promise<Database> {
  if (!options.databaseUrl) return openPglite(options.dataDir);
  return openPostgres(options.databaseUrl, 30, {
    prepare: options.databasePoolMode !== 'transaction',
    listenUrl: options.databaseListenUrl ?? options.databaseUrl,
  });
}
