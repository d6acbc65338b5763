// What the analytics and scale benches share: a database that records the statements one request
// runs, the rows and buffers those statements read (EXPLAIN ANALYZE), one-at-a-time HTTP, and the
// statistics and tables they print.
import { Agent, request as httpRequest } from 'node:http';
import type pg from 'pg';
import type { Database, Queryable } from '../server/src/db/client.ts';
// ---------------------------------------------------------------------------------------------
// A database wrapper that can record the statements one request runs

export interface Statement {
  sql: string;
  params: readonly unknown[];
}

export function recordingDatabase(db: Database) {
  let captured: Statement[] | null = null;
  const wrap = (q: Queryable): Queryable => ({
    query(sql, params = []) {
      captured?.push({ sql, params });
      return q.query(sql, params);
    },
    exec: (sql) => q.exec(sql),
  });
  const wrapped: Database = {
    ...wrap(db),
    kind: db.kind,
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    listen: (channel, handlers) => db.listen(channel, handlers),
    close: () => db.close(),
  };
  return {
    db: wrapped,
    async capture(fn: () => Promise<unknown>): Promise<Statement[]> {
      captured = [];
      try {
        await fn();
        return captured;
      } finally {
        captured = null;
      }
    },
  };
}

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

export interface ScanFigures {
  rows: number;
  invocationRows: number;
  blocks: number;
  executionMs: number;
  statements: number;
}

/** Rows read by every scan node (actual rows × loops), over the read-only statements of one request. */
export async function explain(client: pg.Client, statements: Statement[]): Promise<ScanFigures> {
  const figures: ScanFigures = { rows: 0, invocationRows: 0, blocks: 0, executionMs: 0, statements: 0 };
  for (const statement of statements) {
    // SELECTs, and WITH queries that write nothing (the catalog's); never a statement that writes.
    const readOnlyWith = /^\s*WITH\b/i.test(statement.sql) && !/\b(INSERT|UPDATE|DELETE)\b/i.test(statement.sql);
    if (!/^\s*SELECT/i.test(statement.sql) && !readOnlyWith) continue;
    const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement.sql}`, statement.params as unknown[]);
    const [result] = rows[0]['QUERY PLAN'] as [{ Plan: PlanNode; 'Execution Time': number }];
    const walk = (node: PlanNode) => {
      if (node['Relation Name']) {
        const read = node['Actual Rows'] * node['Actual Loops'];
        figures.rows += read;
        if (node['Relation Name'] === 'invocations') figures.invocationRows += read;
      }
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(result.Plan);
    figures.blocks += (result.Plan['Shared Hit Blocks'] ?? 0) + (result.Plan['Shared Read Blocks'] ?? 0);
    figures.executionMs += result['Execution Time'];
    figures.statements += 1;
  }
  return figures;
}

// ---------------------------------------------------------------------------------------------
// HTTP and statistics

export const agent = new Agent({ keepAlive: true, maxSockets: 1 });

export function http(
  port: number,
  method: string,
  urlPath: string,
  token: string,
  body?: object,
  via: Agent = agent,
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const payload = body ? JSON.stringify(body) : undefined;
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path: urlPath,
        agent: via,
        headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
export const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
    p50: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? Number.NaN,
  };
};
export const ms = (value: number) => value.toFixed(2);

export function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((row) => row.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  return [line(header), `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...cells.slice(1).map(line)].join(
    '\n',
  );
}

// ---------------------------------------------------------------------------------------------
// One read measured through HTTP, and the table of them

export interface ReadResult {
  name: string;
  stats: ReturnType<typeof summary>;
  scan: ScanFigures;
}

/**
 * GETs the warm-up paths, then times the measured ones one at a time (each must answer 200), then
 * records the statements of `explained` and reads what they read (EXPLAIN ANALYZE).
 */
export async function measureRead(
  { port, token, recorder, client }: { port: number; token: string; recorder: ReturnType<typeof recordingDatabase>; client: pg.Client },
  { name, warmUp, measured, explained }: { name: string; warmUp: string[]; measured: string[]; explained: string },
): Promise<ReadResult> {
  for (const target of warmUp) await http(port, 'GET', target, token);
  const samples: number[] = [];
  for (const target of measured) {
    const started = performance.now();
    const response = await http(port, 'GET', target, token);
    samples.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`${name} answered ${response.status}: ${response.body.slice(0, 300)}`);
  }
  const statements = await recorder.capture(() => http(port, 'GET', explained, token));
  return { name, stats: summary(samples), scan: await explain(client, statements) };
}

/** The reads' latencies and what their statements read, one row per read. */
export function readsTable(firstColumn: string, results: ReadResult[]): string {
  return table(
    [firstColumn, 'p50', 'p95', 'p99', 'max', 'rows read', 'of invocations', 'buffers', 'SQL ms'],
    results.map(({ name, stats, scan }) => [
      name,
      ms(stats.p50),
      ms(stats.p95),
      ms(stats.p99),
      ms(stats.max),
      scan.rows,
      scan.invocationRows,
      scan.blocks,
      scan.executionMs.toFixed(2),
    ]),
  );
}
