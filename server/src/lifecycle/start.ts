// What every command of main.ts does before it serves or changes anything: read the configuration,
// reach the database, and check its schema, refusing with one line per problem, naming the variable,
// before anything is written (issue 57's bad input). Then `start` serves and drains on SIGTERM,
// `migrate` applies pending migrations and exits (a release job).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { buildApp } from '../app.ts';
import { type Database, openDatabase } from '../db/client.ts';
import { migrate, NewerSchemaError, readSchemaState } from '../db/migrate.ts';
import { createLifecycle, drain } from '../http/drain.ts';
import { type Config, ConfigError, keepSecretKey, loadConfig } from '../platform/config.ts';
import { processAlive, processStart } from '../platform/processes.ts';

/** A start refused before anything was written: each line names the variable to fix. */
export class StartRefused extends Error {
  constructor(public readonly lines: string[]) {
    super(lines.join('\n'));
    this.name = 'StartRefused';
  }
}

/** The configuration, or StartRefused with one line per problem. `env` defaults to the process's. */
export function readConfig(env: Record<string, string | undefined> = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new StartRefused(error.problems);
    throw error;
  }
}

/** postgres://user:secret@host/db → postgres://user:***@host/db, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

const CONNECT_TIMEOUT_MS = 10_000;

function reasonOf(error: unknown): string {
  const failure = error as Error & { code?: string; errors?: Error[] };
  // A refused connection to a name with several addresses is an AggregateError with an empty message.
  const inner = failure.errors?.[0] as (Error & { code?: string }) | undefined;
  return failure.message || inner?.message || failure.code || inner?.code || String(error);
}

/**
 * Takes DATA_DIR's embedded database for this process: PGlite is one process's database, and a
 * second process opening its files (another `npm start`, `npm run operator` while the server runs)
 * would corrupt it. The lock file names the holder's pid and start, so a holder that died (or a
 * restarted container's pid 1) does not keep it.
 */
function lockEmbeddedDatabase(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'pglite.lock');
  const self = `${process.pid} ${processStart('self') ?? ''}`;
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, self, { flag: 'wx', mode: 0o600 });
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw error;
    }
    const [pidText = '', start = ''] = readFileSync(file, 'utf8').trim().split(' ');
    const pid = Number(pidText);
    const started = Number.isInteger(pid) && pid > 0 ? processStart(pid) : 'gone';
    const alive = started === null ? processAlive(pid) : started !== 'gone' && (start === '' || started === start);
    if (alive && pid !== process.pid) {
      throw new StartRefused([
        `DATA_DIR: the embedded database in ${dataDir} is open in process ${pid} (a running Tollbooth); stop it first, or set DATABASE_URL to share a PostgreSQL server between processes`,
      ]);
    }
    rmSync(file, { force: true });
  }
}

export interface OpenedDatabase {
  db: Database;
  /** Closes the database and gives the embedded database's lock back. */
  close(): Promise<void>;
}

/** Opens the configured database, or StartRefused naming DATABASE_URL (or DATA_DIR) when it cannot be reached. */
export async function openCheckedDatabase(config: Config): Promise<OpenedDatabase> {
  if (config.databaseUrl) {
    const probe = new pg.Client({ connectionString: config.databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    try {
      await probe.connect();
      await probe.query('SELECT 1');
    } catch (error) {
      throw new StartRefused([`DATABASE_URL: cannot reach ${redactUrl(config.databaseUrl)}: ${reasonOf(error)}`]);
    } finally {
      await probe.end().catch(() => undefined);
    }
    if (config.databaseReadUrl) await checkReadReplica(config.databaseUrl, config.databaseReadUrl);
    const db = await openDatabase(config);
    return { db, close: () => db.close() };
  }
  const unlock = lockEmbeddedDatabase(config.dataDir);
  try {
    const db = await openDatabase(config);
    return {
      db,
      async close() {
        await db.close();
        unlock();
      },
    };
  } catch (error) {
    unlock();
    throw new StartRefused([`DATA_DIR: cannot open the embedded database in ${config.dataDir}: ${reasonOf(error)}`]);
  }
}

/**
 * DATABASE_READ_URL must answer and be a copy of DATABASE_URL's cluster (the same system identifier,
 * where the role may read it): a replica of another database would show other data. One not in
 * recovery (the primary itself, or a promoted standby) is accepted: it has every change.
 */
async function checkReadReplica(primaryUrl: string, readUrl: string): Promise<void> {
  const identify = async (url: string, variable: string) => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    try {
      await client.connect();
      const { rows } = await client.query<{ system: string | null }>('SELECT (SELECT system_identifier::text FROM pg_control_system()) AS system');
      return rows[0]?.system ?? null;
    } catch (error) {
      // Some managed services keep pg_control_system() from their users: nothing to compare then.
      if ((error as { code?: string }).code === '42501') return null;
      throw new StartRefused([`${variable}: cannot reach ${redactUrl(url)}: ${reasonOf(error)}`]);
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const [primary, replica] = [await identify(primaryUrl, 'DATABASE_URL'), await identify(readUrl, 'DATABASE_READ_URL')];
  if (primary !== null && replica !== null && primary !== replica) {
    throw new StartRefused([
      `DATABASE_READ_URL: ${redactUrl(readUrl)} is not a replica of DATABASE_URL (PostgreSQL system identifier ${replica}, the primary's is ${primary})`,
    ]);
  }
}

const databaseVariable = (config: Config) => (config.databaseUrl ? 'DATABASE_URL' : 'DATA_DIR');

/** Applies pending migrations under the advisory lock; StartRefused when the schema is newer than this code. */
export async function migrateOrRefuse(config: Config, db: Database): Promise<string[]> {
  try {
    return await migrate(db);
  } catch (error) {
    if (error instanceof NewerSchemaError) throw new StartRefused([`${databaseVariable(config)}: ${error.message}`]);
    throw error;
  }
}

/** With MIGRATE_ON_START=off: the schema must be exactly this code's (the release job migrated it). */
async function checkSchema(config: Config, db: Database): Promise<void> {
  const { pending, unknown } = await readSchemaState(db);
  if (unknown.length > 0) throw new StartRefused([`${databaseVariable(config)}: ${new NewerSchemaError(unknown).message}`]);
  if (pending.length > 0) {
    throw new StartRefused([
      `MIGRATE_ON_START is off and the database lacks ${pending.length} migration${pending.length === 1 ? '' : 's'} (${pending[0]}${pending.length > 1 ? ', …' : ''}): run \`npm run migrate\` (the image: \`node server/dist/main.js migrate\`) first`,
    ]);
  }
}

/** `migrate`: applies pending migrations and prints what it did. */
export async function runMigrate(env: Record<string, string | undefined> = process.env): Promise<void> {
  // A release job needs only the database: the server's other settings are not asked for.
  const config = readConfig({ DATABASE_URL: env.DATABASE_URL, DATA_DIR: env.DATA_DIR });
  const opened = await openCheckedDatabase(config);
  try {
    const applied = await migrateOrRefuse(config, opened.db);
    console.log(applied.length === 0 ? 'No pending migrations: the database is up to date.' : `Applied ${applied.length} migrations: ${applied.join(', ')}`);
  } finally {
    await opened.close();
  }
}

/** `start`: checks, migrates (unless MIGRATE_ON_START=off), serves, and drains on SIGTERM or SIGINT. */
export async function runStart(): Promise<void> {
  const config = readConfig();
  const opened = await openCheckedDatabase(config);
  let app: Awaited<ReturnType<typeof buildApp>>;
  try {
    if (config.migrateOnStart) await migrateOrRefuse(config, opened.db);
    else await checkSchema(config, opened.db);
    // Only now, with the database known good, may a first start write its generated key.
    keepSecretKey(config);
    const lifecycle = createLifecycle();
    app = await buildApp({ config, db: opened.db, lifecycle });
    if (!config.webDistDir) app.log.warn('web/dist is not built: run `npm run build` to serve the web app');

    let cutNow: () => void = () => undefined;
    const cut = new Promise<void>((resolve) => {
      cutNow = resolve;
    });
    let draining = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (draining) {
        app.log.warn({ signal }, 'second signal: cutting what is still open');
        cutNow();
        return;
      }
      draining = true;
      app.log.info({ signal }, 'shutting down');
      // Ctrl-C at a terminal has no load balancer to wait for: no grace period.
      const graceSeconds = signal === 'SIGINT' ? 0 : config.shutdown.graceSeconds;
      // Past the timeout, and as long again for the handlers and commits, the process gives up.
      const hardStop = setTimeout(
        () => {
          app.log.error('the drain did not finish: exiting with what is still open');
          process.exit(1);
        },
        (config.shutdown.timeoutSeconds + 30) * 1000,
      );
      hardStop.unref();
      drain({ app, lifecycle, graceSeconds, timeoutSeconds: config.shutdown.timeoutSeconds, log: app.log, cutNow: cut })
        .then(() => opened.close())
        .then(
          () => process.exit(0),
          (error: unknown) => {
            app.log.error({ err: error }, 'shutdown failed');
            process.exit(1);
          },
        );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);

    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await opened.close().catch(() => undefined);
    throw error;
  }
  app.log.info({ url: config.publicUrl, database: opened.db.kind, oidcIssuer: config.oidc.issuer, production: config.production }, 'Tollbooth is ready');
}
