// The references of ledger entries and invocations, checked once per statement (migration 0041,
// decision 0057): the same rules as the foreign keys they replace, on both databases.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../test-support/database.ts';
import type { Queryable } from './client.ts';

const database = await createTestDatabase();
afterAll(() => database.cleanup());
const { db } = database;
const ownerId = (await db.query<{ id: string }>("INSERT INTO users (issuer, subject) VALUES ('https://issuer.test', 'ref-owner') RETURNING id")).rows[0]!.id;
const appId = (await db.query<{ id: string }>("INSERT INTO apps (owner_id, name, slug, type) VALUES ($1, 'Ref', 'ref', 'prompt') RETURNING id", [ownerId]))
  .rows[0]!.id;
const keyId = (
  await db.query<{ id: string }>("INSERT INTO api_keys (user_id, name, prefix, key_hash) VALUES ($1, 'k', 'tb_refrefre', repeat('b', 64)) RETURNING id", [
    ownerId,
  ])
).rows[0]!.id;
const systemAccount = async (kind: string) =>
  (await db.query<{ id: string }>("SELECT id FROM ledger_accounts WHERE kind = $1 AND user_id IS NULL AND currency = 'usd'", [kind])).rows[0]!.id;
const usdFunding = await systemAccount('outside_funding');
const usdFees = await systemAccount('platform_fees');

const NO_SUCH = '00000000-0000-4000-8000-000000000000';
const foreignKey = (name: string) => ({ code: '23503', message: expect.stringContaining(`"${name}"`) });
const appendOnly = { code: '23001', message: expect.stringMatching(/append-only/) };

const newTransaction = async (tx: Queryable, currency = 'usd') =>
  (await tx.query<{ id: string }>("INSERT INTO ledger_transactions (kind, currency) VALUES ('test_refs', $1) RETURNING id", [currency])).rows[0]!.id;

const invocation = (values: { app?: string; caller?: string | null; key?: string | null }) => [
  values.app ?? appId,
  values.caller === undefined ? ownerId : values.caller,
  values.key === undefined ? keyId : values.key,
];
const INSERT_INVOCATION = "INSERT INTO invocations (app_id, caller_id, api_key_id, status) VALUES ($1, $2, $3, 'success')";

describe('ledger entries', () => {
  it('refuse a transaction or an account that does not exist, by the names of the foreign keys they replace', async () => {
    const { db } = database;
    const before = (await db.query<{ n: string }>('SELECT count(*) AS n FROM ledger_entries')).rows[0]!.n;
    await expect(
      db.transaction((tx) =>
        tx.query('INSERT INTO ledger_entries (transaction_id, account_id, amount_cents) VALUES ($1, $2, -5), ($1, $3, 5)', [NO_SUCH, usdFunding, usdFees]),
      ),
    ).rejects.toMatchObject(foreignKey('ledger_entries_transaction_currency'));
    await expect(
      db.transaction(async (tx) => {
        const id = await newTransaction(tx);
        await tx.query('INSERT INTO ledger_entries (transaction_id, account_id, amount_cents) VALUES ($1, $2, -5), ($1, $3, 5)', [id, usdFunding, '987654321']);
      }),
    ).rejects.toMatchObject(foreignKey('ledger_entries_account_currency'));
    // Among many good rows, one bad one refuses the whole statement.
    await expect(
      db.transaction(async (tx) => {
        const ids = [await newTransaction(tx), await newTransaction(tx), await newTransaction(tx)];
        await tx.query(
          `INSERT INTO ledger_entries (transaction_id, account_id, amount_cents)
           SELECT t, a, s * 3 FROM unnest($1::uuid[]) t, (VALUES ($2::bigint, -1), ($3::bigint, 1)) v(a, s)
           UNION ALL SELECT $4::uuid, $2::bigint, -1 UNION ALL SELECT $4::uuid, $3::bigint, 1`,
          [ids, usdFunding, usdFees, NO_SUCH],
        );
      }),
    ).rejects.toMatchObject(foreignKey('ledger_entries_transaction_currency'));
    expect((await db.query<{ n: string }>('SELECT count(*) AS n FROM ledger_entries')).rows[0]!.n).toBe(before);
  });

  it('keep their references, and the ledger rows they refer to are never deleted, truncated or re-keyed', async () => {
    const { db } = database;
    const id = await db.transaction(async (tx) => {
      const id = await newTransaction(tx);
      await tx.query('INSERT INTO ledger_entries (transaction_id, account_id, amount_cents) VALUES ($1, $2, -5), ($1, $3, 5)', [id, usdFunding, usdFees]);
      await tx.query('UPDATE ledger_accounts SET balance_cents = balance_cents + CASE id WHEN $1 THEN -5 ELSE 5 END WHERE id IN ($1, $2)', [
        usdFunding,
        usdFees,
      ]);
      return id;
    });
    const lone = await db.transaction((tx) => newTransaction(tx));
    for (const statement of [
      ['DELETE FROM ledger_transactions WHERE id = $1', [id]],
      // Even one without entries: the ledger is append-only.
      ['DELETE FROM ledger_transactions WHERE id = $1', [lone]],
      ['TRUNCATE ledger_transactions CASCADE', []],
      ['UPDATE ledger_transactions SET id = gen_random_uuid() WHERE id = $1', [id]],
      ["UPDATE ledger_transactions SET currency = 'eur' WHERE id = $1", [id]],
      ['DELETE FROM ledger_accounts WHERE id = $1', [usdFees]],
      ['TRUNCATE ledger_accounts CASCADE', []],
      ["UPDATE ledger_accounts SET currency = 'eur' WHERE id = $1", [usdFees]],
      ['UPDATE ledger_accounts SET id = id + 1000000 WHERE id = $1', [usdFees]],
      ['UPDATE ledger_entries SET account_id = $2 WHERE transaction_id = $1', [id, usdFunding]],
      ['UPDATE ledger_entries SET transaction_id = $2 WHERE transaction_id = $1', [id, lone]],
      ["UPDATE ledger_entries SET currency = 'eur' WHERE transaction_id = $1", [id]],
    ] as const) {
      await expect(db.query(statement[0], [...statement[1]]), statement[0]).rejects.toMatchObject(appendOnly);
    }
    expect((await db.query('SELECT 1 FROM ledger_entries WHERE transaction_id = $1', [id])).rows).toHaveLength(2);
    // What is not a reference still changes: a balance, a description, an entry's date (tests move dates back).
    await db.query("UPDATE ledger_transactions SET description = 'noted' WHERE id = $1", [id]);
    await db.query("UPDATE ledger_entries SET created_at = created_at - interval '1 day' WHERE transaction_id = $1", [id]);
    await db.query('UPDATE ledger_accounts SET currency = currency, id = id WHERE id = $1', [usdFees]);
  });
});

describe('invocations', () => {
  it('refuse an app, caller or key that does not exist; a missing caller or key is allowed', async () => {
    const { db } = database;
    await expect(db.query(INSERT_INVOCATION, invocation({ app: NO_SUCH }))).rejects.toMatchObject(foreignKey('invocations_app_id_fkey'));
    await expect(db.query(INSERT_INVOCATION, invocation({ caller: NO_SUCH }))).rejects.toMatchObject(foreignKey('invocations_caller_id_fkey'));
    await expect(db.query(INSERT_INVOCATION, invocation({ key: NO_SUCH }))).rejects.toMatchObject(foreignKey('invocations_api_key_fk'));
    // One bad row in a batch refuses the batch, whatever its place.
    await expect(
      db.query(
        `INSERT INTO invocations (app_id, caller_id, api_key_id, status)
         SELECT $1::uuid, $2::uuid, $3::uuid, 'success' FROM generate_series(1, 20) UNION ALL SELECT $1::uuid, $4::uuid, $3::uuid, 'success'`,
        [appId, ownerId, keyId, NO_SUCH],
      ),
    ).rejects.toMatchObject(foreignKey('invocations_caller_id_fkey'));
    expect((await db.query('SELECT 1 FROM invocations')).rows).toEqual([]);
    await db.query(INSERT_INVOCATION, invocation({ caller: null, key: null }));
    await db.query(INSERT_INVOCATION, invocation({}));
    expect((await db.query('SELECT 1 FROM invocations')).rows).toHaveLength(2);
    await expect(db.query('UPDATE invocations SET app_id = $1', [NO_SUCH])).rejects.toMatchObject({ code: '23001' });
    await expect(db.query('UPDATE invocations SET caller_id = NULL')).rejects.toMatchObject({ code: '23001' });
    await expect(db.query('UPDATE invocations SET api_key_id = $1', [NO_SUCH])).rejects.toMatchObject({ code: '23001' });
    await db.query('UPDATE invocations SET latency_ms = 7, app_id = app_id');
  });

  it('keep the app, user and key they refer to from being deleted, truncated or re-keyed; others go', async () => {
    const { db } = database;
    await db.query(INSERT_INVOCATION, invocation({}));
    await expect(db.query('DELETE FROM apps WHERE id = $1', [appId])).rejects.toMatchObject(foreignKey('invocations_app_id_fkey'));
    await expect(db.query('DELETE FROM api_keys WHERE id = $1', [keyId])).rejects.toMatchObject(foreignKey('invocations_api_key_fk'));
    await expect(db.query('UPDATE apps SET id = gen_random_uuid() WHERE id = $1', [appId])).rejects.toMatchObject({ code: '23503' });
    await expect(db.query('TRUNCATE apps CASCADE')).rejects.toMatchObject(foreignKey('invocations_app_id_fkey'));
    // A caller with nothing else that refers to them.
    const caller = (await db.query<{ id: string }>("INSERT INTO users (issuer, subject) VALUES ('https://issuer.test', 'ref-caller') RETURNING id")).rows[0]!
      .id;
    await db.query(INSERT_INVOCATION, invocation({ caller, key: null }));
    await expect(db.query('DELETE FROM users WHERE id = $1', [caller])).rejects.toMatchObject(foreignKey('invocations_caller_id_fkey'));
    await expect(db.query('UPDATE users SET id = gen_random_uuid() WHERE id = $1', [caller])).rejects.toMatchObject({ code: '23503' });
    expect((await db.query('SELECT 1 FROM apps WHERE id = $1', [appId])).rows).toHaveLength(1);
    // Rows that no invocation refers to are deleted and re-keyed as before.
    const spare = (await db.query<{ id: string }>("INSERT INTO users (issuer, subject) VALUES ('https://issuer.test', 'ref-spare') RETURNING id")).rows[0]!.id;
    const spareApp = (
      await db.query<{ id: string }>("INSERT INTO apps (owner_id, name, slug, type) VALUES ($1, 'Spare', 'spare', 'prompt') RETURNING id", [spare])
    ).rows[0]!.id;
    await db.query('UPDATE apps SET id = gen_random_uuid() WHERE id = $1', [spareApp]);
    await db.query('DELETE FROM apps WHERE owner_id = $1', [spare]);
    await db.query('DELETE FROM users WHERE id = $1', [spare]);
    // Outside READ COMMITTED the delete's check could miss a concurrent transaction's rows: refused.
    await expect(
      db.transaction(async (tx) => {
        await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
        await tx.query('DELETE FROM apps WHERE id = $1', [NO_SUCH]);
      }),
    ).rejects.toMatchObject({ code: '0A000' });
  });

  it.skipIf(!process.env.DATABASE_URL)(
    'lock what they refer to: a delete waits for the transaction that records, then is refused; and the other way round',
    async () => {
      const { db, url } = database;
      const owner = (await db.query<{ id: string }>("INSERT INTO users (issuer, subject) VALUES ('https://issuer.test', 'ref-race') RETURNING id")).rows[0]!.id;
      const newApp = async (slug: string) =>
        (await db.query<{ id: string }>("INSERT INTO apps (owner_id, name, slug, type) VALUES ($1, 'Race', $2, 'prompt') RETURNING id", [owner, slug])).rows[0]!
          .id;
      const recorder = new pg.Client({ connectionString: url! });
      const deleter = new pg.Client({ connectionString: url! });
      await recorder.connect();
      await deleter.connect();
      const waiting = async (client: pg.Client) => {
        const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        return () => db.query<{ waiting: boolean }>("SELECT wait_event_type = 'Lock' AS waiting FROM pg_stat_activity WHERE pid = $1", [pid]);
      };
      try {
        // Recorded first: the delete waits for the recorder's commit, then sees its invocation.
        const first = await newApp('race-1');
        await recorder.query('BEGIN');
        await recorder.query(INSERT_INVOCATION, invocation({ app: first, caller: owner, key: null }));
        const deleterWaits = await waiting(deleter);
        const deleted = deleter.query('DELETE FROM apps WHERE id = $1', [first]).then(
          () => null,
          (error: unknown) => error,
        );
        await expect.poll(async () => (await deleterWaits()).rows[0]?.waiting, { timeout: 10_000 }).toBe(true);
        await recorder.query('COMMIT');
        expect(await deleted).toMatchObject(foreignKey('invocations_app_id_fkey'));

        // Deleted first: the recording waits for the delete's commit, then finds the app gone.
        const second = await newApp('race-2');
        await deleter.query('BEGIN');
        await deleter.query('DELETE FROM apps WHERE id = $1', [second]);
        const recorderWaits = await waiting(recorder);
        const recorded = recorder.query(INSERT_INVOCATION, invocation({ app: second, caller: owner, key: null })).then(
          () => null,
          (error: unknown) => error,
        );
        await expect.poll(async () => (await recorderWaits()).rows[0]?.waiting, { timeout: 10_000 }).toBe(true);
        await deleter.query('COMMIT');
        expect(await recorded).toMatchObject(foreignKey('invocations_app_id_fkey'));
        expect((await db.query('SELECT 1 FROM invocations WHERE app_id = $1', [second])).rows).toEqual([]);
      } finally {
        await recorder.end();
        await deleter.end();
      }
    },
  );
});
