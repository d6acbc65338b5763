// The invalidation bus over both drivers: NOTIFYs from any connection reach it, a lost listening
// connection makes it not live (so caches read the database) until it listens again, and the
// loss itself tells every cache to forget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test-support/database.ts';
import { createInvalidationBus, INVALIDATION_CHANNEL, type InvalidationBus } from './invalidation.ts';

let database: TestDatabase;
let bus: InvalidationBus;
const heard: (string | null)[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  bus = await createInvalidationBus(database.db);
  bus.on('key', (id) => heard.push(id));
});
afterAll(async () => {
  await bus?.close();
  await database?.cleanup();
});

describe('the invalidation bus', () => {
  it("hears each change by kind; anything it cannot read means 'forget everything'", async () => {
    heard.length = 0;
    await database.db.query('SELECT pg_notify($1, $2)', [INVALIDATION_CHANNEL, 'key:k1']);
    await database.db.query('SELECT pg_notify($1, $2)', [INVALIDATION_CHANNEL, 'user:u1']);
    await database.db.query('SELECT pg_notify($1, $2)', [INVALIDATION_CHANNEL, 'gibberish']);
    await expect.poll(() => heard, { timeout: 5_000 }).toEqual(['k1', null]);
  });

  it('a load that overlapped a change is not to be kept', async () => {
    const token = bus.track();
    expect(bus.stillCurrent(token)).toBe(true);
    await database.db.query('SELECT pg_notify($1, $2)', [INVALIDATION_CHANNEL, 'subscriber:s1']);
    await expect.poll(() => bus.stillCurrent(token), { timeout: 5_000 }).toBe(false);
  });

  it('the triggers announce key, user and subscription changes at commit', async () => {
    const { rows } = await database.db.query<{ id: string }>("INSERT INTO users (issuer, subject) VALUES ('i', 'bus-user') RETURNING id");
    const userId = rows[0]!.id;
    const key = await database.db.query<{ id: string }>(
      "INSERT INTO api_keys (user_id, name, prefix, key_hash) VALUES ($1, 'k', 'tb_xxxxxxxx', repeat('a', 64)) RETURNING id",
      [userId],
    );
    heard.length = 0;
    await database.db.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [key.rows[0]!.id]);
    await database.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.rows[0]!.id]);
    await expect.poll(() => heard, { timeout: 5_000 }).toEqual([key.rows[0]!.id]);
  });

  it.runIf(process.env.DATABASE_URL)('PostgreSQL: a lost listening connection is not live, forgets everything, and listens again', async () => {
    heard.length = 0;
    expect(bus.live()).toBe(true);
    await database.db.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'");
    await expect.poll(() => heard.includes(null), { timeout: 5_000 }).toBe(true);
    await expect.poll(() => bus.live(), { timeout: 10_000, interval: 50 }).toBe(true);
    heard.length = 0;
    await database.db.query('SELECT pg_notify($1, $2)', [INVALIDATION_CHANNEL, 'key:after']);
    await expect.poll(() => heard, { timeout: 5_000 }).toEqual(['after']);
  });
});
