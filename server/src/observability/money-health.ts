// The money's health as gauges (issue 58), read when Prometheus scrapes, never on a paid call:
// - this process's answered calls not yet settled (its journal, billing/paid-call/answer-journal.ts)
//   and the age of the oldest, from memory at every scrape;
// - from the database, at most once per `everyMs` (a minute by default; decision 0102): the ledger's
//   imbalance (the sum of every account's balance per currency; each balance is the running sum of
//   its entries and every ledger transaction sums to zero, so anything but 0 is money made or lost),
//   the credits held by live holds, holds whose process stopped renewing them (stalled: past their
//   expiry, not yet swept), and answered calls owed from the database (answered_calls) and the age
//   of the oldest.
// The settlement batches, uncharged answers and the money of each call are counted where they
// happen (platform/metrics.ts).
import type { Database } from '../db/client.ts';
import type { Metrics } from '../platform/metrics.ts';

export interface JournalFigures {
  /** Answered calls waiting for their settlement commit in this process. */
  calls: number;
  /** performance.now() when the oldest of them was answered; null when none waits. */
  oldestAt: number | null;
}

const HEALTH_SQL = `
SELECT
  (SELECT coalesce(json_agg(json_build_object('currency', currency, 'sum', total)), '[]'::json)
     FROM (SELECT currency, sum(balance_cents) AS total FROM ledger_accounts GROUP BY currency) sums) AS imbalance,
  (SELECT count(*) FROM credit_holds) AS holds,
  (SELECT coalesce(sum(amount_cents), 0) FROM credit_holds) AS held_cents,
  (SELECT count(*) FROM credit_holds WHERE expires_at < now()) AS stalled,
  (SELECT count(*) FROM answered_calls) AS owed,
  (SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0) FROM answered_calls) AS owed_oldest_seconds`;

interface HealthRow {
  imbalance: { currency: string; sum: number | string }[] | string;
  holds: number;
  held_cents: number;
  stalled: number;
  owed: number;
  owed_oldest_seconds: number;
}

/** How long a scrape waits for the database's figures before it shows the last ones read. */
const READ_TIMEOUT_MS = 2000;

export function registerMoneyHealth(metrics: Metrics, db: Database, journal: () => JournalFigures, everyMs: number) {
  metrics.gauge('tollbooth_answer_journal_calls', 'Answered paid calls of this process not yet settled (its journal)', [], (gauge) => {
    gauge.set(journal().calls);
  });
  metrics.gauge('tollbooth_answer_journal_oldest_seconds', 'Age of the oldest answered call of this process not yet settled (0: none)', [], (gauge) => {
    const { oldestAt } = journal();
    gauge.set(oldestAt === null ? 0 : (performance.now() - oldestAt) / 1000);
  });

  let last: HealthRow | null = null;
  let readAt = -Infinity;
  let reading: Promise<void> | null = null;
  const read = () => {
    reading ??= db
      .query<HealthRow>(HEALTH_SQL)
      .then(({ rows }) => {
        last = rows[0] ?? null;
        readAt = performance.now();
      })
      .catch(() => {
        // The figures stay as last read; tollbooth_money_health_read_timestamp_seconds tells how old.
      })
      .finally(() => {
        reading = null;
      });
    return reading;
  };
  /** The figures, read again when older than everyMs (the scrape waits at most READ_TIMEOUT_MS). */
  const fresh = async (): Promise<HealthRow | null> => {
    if (performance.now() - readAt >= everyMs) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([read(), new Promise<void>((resolve) => (timer = setTimeout(resolve, READ_TIMEOUT_MS)))]);
      clearTimeout(timer);
    }
    return last;
  };
  const number = (value: number | string | null | undefined) => Number(value ?? 0);

  metrics.gauge(
    'tollbooth_ledger_imbalance_cents',
    "The sum of every ledger account's balance, per currency, in minor units (must stay 0); read at most once a minute",
    ['currency'],
    async (gauge) => {
      const row = await fresh();
      if (!row) return;
      const sums = typeof row.imbalance === 'string' ? (JSON.parse(row.imbalance) as { currency: string; sum: number }[]) : row.imbalance;
      gauge.reset();
      if (sums.length === 0) gauge.set({ currency: 'usd' }, 0);
      for (const { currency, sum } of sums) gauge.set({ currency }, number(sum));
    },
  );
  const figure = (name: string, help: string, pick: (row: HealthRow) => number) =>
    metrics.gauge(name, help, [], async (gauge) => {
      const row = await fresh();
      if (row) gauge.set(number(pick(row)));
    });
  figure('tollbooth_credit_holds', 'Credit holds (leases and reservations) in the database; read at most once a minute', (row) => row.holds);
  figure('tollbooth_held_credits_cents', 'Credits and earnings held by credit holds, in cents; read at most once a minute', (row) => row.held_cents);
  figure(
    'tollbooth_stalled_holds',
    'Holds past their expiry not yet released: their process stopped renewing them; read at most once a minute',
    (row) => row.stalled,
  );
  figure(
    'tollbooth_answered_calls_owed',
    'Answered calls copied to the database and owed by a hold (answered_calls); read at most once a minute',
    (row) => row.owed,
  );
  figure('tollbooth_answered_calls_owed_oldest_seconds', 'Age of the oldest answered call owed in the database (0: none)', (row) => row.owed_oldest_seconds);
  metrics.gauge('tollbooth_money_health_read_timestamp_seconds', "When the money's health was last read from the database (Unix time)", [], async (gauge) => {
    await fresh();
    if (last) gauge.set((performance.timeOrigin + readAt) / 1000);
  });
}
