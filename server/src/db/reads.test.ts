// The read router (db/reads.ts, decision 0130) on its own: where a reader's statements go, what a
// failing replica does, and that a routed read cannot write. Both databases; the real replica is
// replica.test.ts's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test-support/database.ts';
import { type Database, openPostgres } from './client.ts';
import { createReadRouter } from './reads.ts';

let database: TestDatabase;
/** A replica that is not there: nothing listens on port 1. */
let gone: Database;

beforeAll(async () => {
  database = await createTestDatabase();
  gone = await openPostgres('postgres://postgres@127.0.0.1:1/nowhere', 2);
});
afterAll(async () => {
  await gone?.close();
  await database?.cleanup();
});

describe('the read router', () => {
  it('without a replica reads the primary, read only and under the timeout', async () => {
    const reads = createReadRouter({ primary: database.db, statementTimeoutMs: 2500 });
    const as = reads.as({ id: 'u', written_lsn: '0/1' });
    expect(await as.target()).toBe('primary');
    const { rows } = await as.query<{ timeout: string; read_only: string; jit: string }>(
      "SELECT current_setting('statement_timeout') AS timeout, current_setting('transaction_read_only') AS read_only, current_setting('jit') AS jit",
    );
    expect(rows).toEqual([{ timeout: '2500ms', read_only: 'on', jit: 'off' }]);
    await expect(as.query('INSERT INTO user_write_positions (user_id, written_lsn) VALUES (gen_random_uuid(), $1)', ['0/1'])).rejects.toMatchObject({
      code: '25006',
    });
    await expect(as.exec('SELECT 1')).rejects.toThrow(/write through the primary/);
    expect(reads.counters).toEqual({ replica: 0, primary: 1, behind: 0, retried: 0 });
  });

  it('reads a replica that cannot answer again on the primary, and says so', async () => {
    const failures: unknown[] = [];
    const reads = createReadRouter({ primary: database.db, replica: gone, statementTimeoutMs: 2500, onReplicaError: (error) => failures.push(error) });
    expect(await reads.as(null).target()).toBe('replica');
    const { rows } = await reads.as(null).query<{ one: number }>('SELECT 1 AS one');
    expect(rows).toEqual([{ one: 1 }]);
    expect(reads.counters).toMatchObject({ replica: 0, primary: 1, retried: 1 });
    // A reader with a position: the replica cannot be asked how far it is, so the primary.
    expect(await reads.as({ id: 'u', written_lsn: '0/1' }).target()).toBe('primary');
    expect(failures.length).toBe(2);
    // A statement's own error is not the replica's: it is not read again.
    await expect(createReadRouter({ primary: database.db, statementTimeoutMs: 2500 }).primary.query('SELECT 1/0')).rejects.toMatchObject({ code: '22012' });
  });

  it.skipIf(!process.env.DATABASE_URL)('sends a reader with a position to the primary when the "replica" replays nothing (not in recovery)', async () => {
    const notReplica = await openPostgres(database.url!, 2);
    try {
      const reads = createReadRouter({ primary: database.db, replica: notReplica, statementTimeoutMs: 2500 });
      expect(await reads.as({ id: 'u', written_lsn: '0/1' }).target()).toBe('primary');
      expect(await reads.as({ id: 'u', written_lsn: null }).target()).toBe('replica');
      expect(reads.counters.behind).toBe(1);
    } finally {
      await notReplica.close();
    }
  });
});
