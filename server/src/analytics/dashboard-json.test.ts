// The dashboard's applications are written as JSON by the database (selectDashboardApps, decision
// 0160): its numbers must be the ones period.ts computes in JavaScript, written as JavaScript writes
// them, and its strings must read back as stored, whatever their characters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test-support/database.ts';
import { ANALYTICS_SEED as SEED, seededRandom } from '../test-support/seeded-random.ts';
import { meanSeconds, percent } from './period.ts';
import { responseTimeJsonSql, selectDashboardApps, successRateJsonSql } from './queries.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.cleanup());

describe("the dashboard's JSON written by the database", () => {
  it('writes the success rate and response time JavaScript would, for awkward ratios and large sums', async () => {
    const next = seededRandom(SEED);
    const cases: [number, number, number][] = [
      [0, 0, 0],
      [1, 0, 1],
      [0, 1, 999],
      [2, 1, 1001],
      [1, 2, 1500],
      [5, 2, 7850],
      [1, 7, 1],
      [2, 6, 4],
      [123456789, 987654321, 2 ** 40 + 3],
      [2 ** 31, 2 ** 31 + 1, 2 ** 45 + 1],
    ];
    for (let i = 0; i < 3000; i++) {
      const scale = 10 ** Math.floor(next() * 9);
      cases.push([Math.floor(next() * scale), Math.floor(next() * scale), Math.floor(next() * scale * 3000)]);
    }
    const { rows } = await database.db.query<{ rate: string; seconds: string }>(
      `SELECT ${successRateJsonSql('c.s', 'c.e')} AS rate, ${responseTimeJsonSql('c.l', 'c.s', 'c.e')} AS seconds
       FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS c(s, e, l, n) ORDER BY c.n`,
      [cases.map((c) => c[0]), cases.map((c) => c[1]), cases.map((c) => c[2])],
    );
    const seen = rows.map((row) => [row.rate, row.seconds]);
    const expected = cases.map(([s, e, l]) => [JSON.stringify(percent(s, s + e)), JSON.stringify(meanSeconds(l, s + e))]);
    expect(seen).toEqual(expected);
  });

  it('writes names that read back as stored, in the compact text JSON.stringify writes', async () => {
    const owner = await database.db.query<{ id: string }>(
      "INSERT INTO users (issuer, subject, email) VALUES ('https://issuer.test', 'json-owner', 'o@test') RETURNING id",
    );
    const names = ['plain', 'quote " and \\ backslash', 'new\nline\ttab\u0001ctl', 'naïve — 東京 ✓ 😀', '</script><b>', ''];
    for (const [index, name] of names.entries()) {
      await database.db.query(`INSERT INTO apps (owner_id, name, slug, type, created_at) VALUES ($1, $2, $3, 'prompt', now() - make_interval(secs => $4))`, [
        owner.rows[0]!.id,
        name,
        `json-app-${index}`,
        index,
      ]);
    }
    const end = new Date().toISOString().slice(0, 10);
    const apps = await selectDashboardApps(database.db, owner.rows[0]!.id, 30, end, end);
    expect(apps.count).toBe(names.length);
    const parsed = JSON.parse(apps.json) as { application_name: string }[];
    expect(parsed.map((app) => app.application_name)).toEqual(names);
    expect(apps.json).toBe(JSON.stringify(parsed));
    // The contract's fields, in its order, for an app never called.
    expect(Object.entries(parsed[0]!)).toEqual([
      ['application_name', 'plain'],
      ['application_slug', 'json-app-0'],
      ['application_type', 'prompt'],
      ['invocations', 0],
      ['success_rate', 0],
      ['rejected_count', 0],
      ['avg_response_time', 0],
      ['last_used', null],
    ]);
    const none = await selectDashboardApps(database.db, '00000000-0000-0000-0000-000000000000', 7, end, end);
    expect(none).toEqual({ count: 0, json: '[]' });
  });
});
