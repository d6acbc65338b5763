import pg from 'pg';
import { selectCatalogPage } from './src/catalog/queries.ts';
const client = new pg.Client(process.env.DB);
await client.connect();
const q = { query: async (sql: string, params: unknown[]) => {
  const r = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params as unknown[]);
  if (process.env.FULL) console.log(r.rows.map((x) => x['QUERY PLAN']).join('\n'));
  else console.log(r.rows.filter((x) => /Execution|Planning Time|JIT/.test(x['QUERY PLAN'])).map((x) => x['QUERY PLAN']).join(' '));
  return { rows: [{ fresh: true, id: null }] };
}, exec: async () => {} } as never;
for (let i = 0; i < 5; i++) await selectCatalogPage(q, { words: [], sort: (process.env.SORT ?? 'popular') as never, after: null, limit: 25, popularDays: 30 });
await client.end();
