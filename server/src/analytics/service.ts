// Analytics read the per-app per-day rollups kept as calls are recorded, never the invocations
// (except the newest few, by index). Per-app answers are for the app's owner only: anyone else
// gets the same 404 as for an app that does not exist. Outcomes (call-outcomes.ts): success
// rates are success / (success + failed) and response times those of answered and failed calls,
// so callers' mistakes (rejected calls, counted apart by type) never count against the app.
import type { Readable } from 'node:stream';
import {
  type DashboardAnalytics,
  INVOCATIONS_CSV_DEFAULT_LIMIT,
  type PerformanceAnalytics,
  type RecentInvocation,
  type UsageAnalytics,
} from '@tollbooth/contract';
import type { AppsService } from '../apps/service.ts';
import type { Queryable } from '../db/client.ts';
import type { Reader, ReadRouter } from '../db/reads.ts';
import { csvStream, toCsv } from '../http/csv.ts';
import { mapPage, type Page, takeKeysetPage } from '../http/pagination.ts';
import { analyticsPeriod, centsToDollars, meanSeconds, msToSeconds, type Period, percent } from './period.ts';
import {
  countAppUsersSince,
  countOwnerUsersSince,
  type DailyTotals,
  type ErrorGroupRow,
  eachInvocation,
  rollAppTotals,
  selectAppCurrencyRevenue,
  selectAppDailyRejections,
  selectAppDailyStats,
  selectAppDailyUserCounts,
  selectAppErrors,
  selectDashboardApps,
  selectOwnerDailyStats,
  selectOwnerErrors,
  selectRecentInvocations,
} from './queries.ts';

export interface AnalyticsDependencies {
  /** Every read under the statement timeout, on the replica when it has the reader's last change (db/reads.ts). */
  reads: ReadRouter;
  apps: Pick<AppsService, 'findOwnedApp'>;
  /** The clock that decides which day is today; tests may pin it. */
  now?: () => Date;
  /** Told when a streamed export fails after its first line (the answer is then cut short). */
  onExportError?: (error: unknown) => void;
}

export interface CsvExport {
  filename: string;
  csv: string;
}

/** A CSV answer written while it is read (http/csv.ts csvStream). */
export interface CsvStreamExport {
  filename: string;
  body: Readable;
}

/** Rows read and written per batch of a streamed export: only one batch is held at a time. */
export const EXPORT_BATCH_ROWS = 1000;

const INVOCATIONS_CSV_HEADER = [
  'id',
  'created_at',
  'end_user',
  'status',
  'outcome',
  'error_type',
  'response_time_seconds',
  'input_tokens',
  'output_tokens',
  'price_cents',
  'model_cost_dollars',
  'charge_dollars',
];

const ZERO: DailyTotals = {
  invocations: 0,
  successes: 0,
  errors: 0,
  rejections: 0,
  latency_ms_sum: 0,
  input_tokens: 0,
  output_tokens: 0,
  revenue_cents: 0,
  fee_cents: 0,
  model_cost_micros: 0,
};

/** Micro-dollars as dollars (the model cost is kept below a cent, decision 0025). */
const microsToDollars = (micros: number) => Math.round(micros) / 1_000_000;
/** The creator's margin in dollars: revenue less the platform fee and the model cost. */
const netDollars = (totals: DailyTotals) => microsToDollars((totals.revenue_cents - totals.fee_cents) * 10_000 - totals.model_cost_micros);

/** Success over success plus failed, in percent; rejected calls are the caller's, not the app's. */
const successRate = (totals: Pick<DailyTotals, 'successes' | 'errors'>) => percent(totals.successes, totals.successes + totals.errors);
/** The mean response time of the answered and failed calls (the only ones in latency_ms_sum). */
const responseTime = (totals: Pick<DailyTotals, 'latency_ms_sum' | 'successes' | 'errors'>) =>
  meanSeconds(totals.latency_ms_sum, totals.successes + totals.errors);
/** The groups of one outcome, as the answers list them (already most frequent first). */
const groupsOf = (rows: readonly ErrorGroupRow[], outcome: ErrorGroupRow['outcome']) =>
  rows.filter((row) => row.outcome === outcome).map((row) => ({ error_type: row.error_type, count: row.count }));

function sumTotals(rows: readonly DailyTotals[]): DailyTotals {
  const total = { ...ZERO };
  for (const row of rows) {
    for (const key of Object.keys(ZERO) as (keyof DailyTotals)[]) total[key] += row[key];
  }
  return total;
}

/** One entry per day of the period, zero where no rollup row exists. */
function zeroFilled(period: Period, rows: readonly (DailyTotals & { day: string | null })[]): { date: string; totals: DailyTotals }[] {
  const byDay = new Map(rows.map((row) => [row.day, row]));
  return period.days.map((date) => ({ date, totals: byDay.get(date) ?? ZERO }));
}

export function createAnalyticsService({ reads, apps, now = () => new Date(), onExportError }: AnalyticsDependencies) {
  const periodOf = (days: number) => analyticsPeriod(days, now());

  const appDays = async (db: Queryable, appId: string, period: Period) => zeroFilled(period, await selectAppDailyStats(db, appId, period.start, period.end));

  const readUsageOf = async (db: Queryable, appId: string, days: number): Promise<UsageAnalytics> => {
    const period = periodOf(days);
    const [series, users, otherRevenue] = await Promise.all([
      appDays(db, appId, period),
      countAppUsersSince(db, appId, period.start),
      selectAppCurrencyRevenue(db, appId, period.start, period.end),
    ]);
    const total = sumTotals(series.map((entry) => entry.totals));
    return {
      total_invocations: total.invocations,
      total_users: users,
      total_revenue: centsToDollars(total.revenue_cents),
      total_revenue_cents: total.revenue_cents,
      other_currency_revenue: otherRevenue,
      total_platform_fee_cents: total.fee_cents,
      total_model_cost: microsToDollars(total.model_cost_micros),
      total_model_cost_micros: total.model_cost_micros,
      total_net: netDollars(total),
      data: series.map(({ date, totals }) => ({
        date,
        invocations: totals.invocations,
        revenue: centsToDollars(totals.revenue_cents),
        model_cost: microsToDollars(totals.model_cost_micros),
        net: netDollars(totals),
      })),
    };
  };

  return {
    /**
     * Everything the Global Analytics screen shows, over the owner's live applications, as the JSON
     * text of its answer: the applications' array is written by the database (selectDashboardApps)
     * and spliced in; the rest is JSON.stringify of the object below, in the contract's key order.
     */
    async readDashboard(owner: Reader, days: number): Promise<string> {
      const db = reads.as(owner);
      const ownerId = owner.id;
      const period = periodOf(days);
      const [apps, daily, errors, users] = await Promise.all([
        selectDashboardApps(db, ownerId, days as 7 | 30 | 90, period.start, period.end),
        selectOwnerDailyStats(db, ownerId, period.start, period.end),
        selectOwnerErrors(db, ownerId, period.start, period.end),
        countOwnerUsersSince(db, ownerId, period.start),
      ]);
      const perDay = zeroFilled(period, daily);
      const overall = sumTotals(perDay.map((entry) => entry.totals));
      const head: Omit<DashboardAnalytics, 'applications' | 'errors' | 'rejections'> = {
        overview: {
          total_applications: apps.count,
          total_invocations: overall.invocations,
          total_users: users,
          success_rate: successRate(overall),
          rejected_count: overall.rejections,
        },
        time_series: {
          data: perDay.map(({ date, totals: day }) => ({
            date,
            invocations: day.invocations,
            success_count: day.successes,
            error_count: day.errors,
            rejected_count: day.rejections,
            avg_response_time: responseTime(day),
            input_tokens: day.input_tokens,
            output_tokens: day.output_tokens,
          })),
        },
      };
      const tail: Pick<DashboardAnalytics, 'errors' | 'rejections'> = { errors: groupsOf(errors, 'failed'), rejections: groupsOf(errors, 'rejected') };
      return `${JSON.stringify(head).slice(0, -1)},"applications":${apps.json},${JSON.stringify(tail).slice(1)}`;
    },

    async readUsage(slug: string, owner: Reader, days: number): Promise<UsageAnalytics> {
      const app = await apps.findOwnedApp(slug, owner.id);
      return readUsageOf(reads.as(owner), app.id, days);
    },

    async readPerformance(slug: string, owner: Reader, days: number): Promise<PerformanceAnalytics> {
      const app = await apps.findOwnedApp(slug, owner.id);
      const db = reads.as(owner);
      const period = periodOf(days);
      const [series, errors] = await Promise.all([appDays(db, app.id, period), selectAppErrors(db, app.id, period.start, period.end)]);
      const total = sumTotals(series.map((entry) => entry.totals));
      return {
        success_rate: successRate(total),
        average_response_time: responseTime(total),
        failed_count: total.errors,
        rejected_count: total.rejections,
        errors: groupsOf(errors, 'failed'),
        rejections: groupsOf(errors, 'rejected'),
        data: series.map(({ date, totals }) => ({
          date,
          success_count: totals.successes,
          error_count: totals.errors,
          rejected_count: totals.rejections,
          response_time: responseTime(totals),
        })),
      };
    },

    /** A page of the app's calls, newest first (older than `cursor` when given). */
    async readRecentInvocations(slug: string, owner: Reader, limit: number, cursor?: string): Promise<Page<RecentInvocation>> {
      const app = await apps.findOwnedApp(slug, owner.id);
      const page = takeKeysetPage(await selectRecentInvocations(reads.as(owner), app.id, limit + 1, cursor), limit);
      return mapPage(page, (row) => ({
        id: row.id,
        end_user: row.end_user === '' ? null : row.end_user,
        status: row.status,
        outcome: row.outcome,
        error_type: row.error_type,
        response_time: msToSeconds(row.latency_ms),
        input_tokens: row.input_tokens,
        output_tokens: row.output_tokens,
        price_cents: row.price_cents,
        charge_micros: row.charge_micros,
        model_cost: microsToDollars(row.model_cost_micros),
        created_at: new Date(row.created_at).toISOString(),
      }));
    },

    /**
     * The app's calls as CSV, newest first: the newest `limit` (default 1,000), or every call of the
     * last `days` UTC days (at most `limit` of them when given), streamed a batch at a time.
     */
    async exportInvocationsCsv(slug: string, owner: Reader, { limit, days }: { limit?: number; days?: number }): Promise<CsvStreamExport> {
      const app = await apps.findOwnedApp(slug, owner.id);
      const db = reads.as(owner);
      const since = days === undefined ? null : new Date(`${periodOf(days).start}T00:00:00.000Z`);
      const body = await csvStream(
        INVOCATIONS_CSV_HEADER,
        (push) =>
          eachInvocation(
            db,
            app.id,
            { since, limit: limit ?? (days === undefined ? INVOCATIONS_CSV_DEFAULT_LIMIT : null), batchRows: EXPORT_BATCH_ROWS },
            (rows) =>
              push(
                rows.map((row) => [
                  row.id,
                  new Date(row.created_at).toISOString(),
                  row.end_user,
                  row.status,
                  row.outcome,
                  row.error_type,
                  msToSeconds(row.latency_ms),
                  row.input_tokens,
                  row.output_tokens,
                  row.price_cents,
                  microsToDollars(row.model_cost_micros).toFixed(6),
                  microsToDollars(row.charge_micros).toFixed(6),
                ]),
              ),
          ),
        onExportError,
      );
      return { filename: days === undefined ? `${app.slug}-invocations.csv` : `${app.slug}-invocations-${days}d.csv`, body };
    },

    /**
     * One row per UTC day of the period, with every daily figure the rollups keep: failed calls in
     * error_count, rejected calls apart in rejected_count and, per type seen in the period, in one
     * rejected_<type> column each.
     */
    async exportUsageCsv(slug: string, owner: Reader, days: number): Promise<CsvExport> {
      const app = await apps.findOwnedApp(slug, owner.id);
      const db = reads.as(owner);
      const period = periodOf(days);
      const [series, dailyUsers, rejections] = await Promise.all([
        appDays(db, app.id, period),
        selectAppDailyUserCounts(db, app.id, period.start, period.end),
        selectAppDailyRejections(db, app.id, period.start, period.end),
      ]);
      const usersByDay = new Map(dailyUsers.map((row) => [row.day, row.users]));
      const rejectedTypes = [...new Set(rejections.map((row) => row.error_type))].sort();
      const rejectedByDay = new Map(rejections.map((row) => [`${row.day} ${row.error_type}`, row.count]));
      const csv = toCsv(
        [
          'date',
          'invocations',
          'success_count',
          'error_count',
          'rejected_count',
          'success_rate_percent',
          'avg_response_time_seconds',
          'input_tokens',
          'output_tokens',
          'revenue_dollars',
          'revenue_cents',
          'platform_fee_cents',
          'model_cost_dollars',
          'net_dollars',
          'unique_users',
          ...rejectedTypes.map((type) => `rejected_${type || 'unknown'}`),
        ],
        series.map(({ date, totals }) => [
          date,
          totals.invocations,
          totals.successes,
          totals.errors,
          totals.rejections,
          successRate(totals),
          responseTime(totals),
          totals.input_tokens,
          totals.output_tokens,
          centsToDollars(totals.revenue_cents).toFixed(2),
          totals.revenue_cents,
          totals.fee_cents,
          microsToDollars(totals.model_cost_micros).toFixed(6),
          netDollars(totals).toFixed(6),
          usersByDay.get(date) ?? 0,
          ...rejectedTypes.map((type) => rejectedByDay.get(`${date} ${type}`) ?? 0),
        ]),
      );
      return { filename: `${app.slug}-usage-${days}d.csv`, csv };
    },
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;

/**
 * Each app of these owners that was called since `since`: its calls that count for its success rate
 * (success and failed; a caller's mistake is not the app's) and its failures (app.error_rate, webhooks/).
 */
export async function readRecentErrorRates(
  db: Queryable,
  ownerIds: string[],
  since: Date,
): Promise<{ owner_id: string; app_id: string; slug: string; total: number; failed: number }[]> {
  if (ownerIds.length === 0) return [];
  const { rows } = await db.query<{ owner_id: string; app_id: string; slug: string; total: number; failed: number }>(
    `SELECT a.owner_id, a.id AS app_id, a.slug,
            count(*) FILTER (WHERE i.outcome IN ('success', 'failed'))::int AS total, count(*) FILTER (WHERE i.outcome = 'failed')::int AS failed
       FROM apps a JOIN invocations i ON i.app_id = a.id AND i.created_at > $2
      WHERE a.owner_id = ANY($1::uuid[]) AND a.deleted_at IS NULL
      GROUP BY a.owner_id, a.id, a.slug`,
    [ownerIds, since],
  );
  return rows;
}

const DAY_MS = 86_400_000;

/** Apps whose running totals one statement rolls forward (each its own transaction, holding those apps' rows briefly). */
export const APP_TOTALS_ROLL_BATCH = 500;
/** How often the server rolls the apps' running totals to today (until it has, reads sum those apps' days instead). */
export const APP_TOTALS_ROLL_EVERY_MS = 5 * 60_000;

/** Rolls every app's running totals forward to the database's today (decision 0135); returns how many it moved. */
export async function rollAllAppTotals(db: Queryable): Promise<number> {
  let total = 0;
  for (;;) {
    const rolled = await rollAppTotals(db, APP_TOTALS_ROLL_BATCH);
    total += rolled;
    if (rolled < APP_TOTALS_ROLL_BATCH) return total;
  }
}

/** Runs rollAllAppTotals now, every `everyMs` and just after each UTC midnight until stopped; a failure is logged and retried at the next run. */
export function startAppTotalsRoller(
  db: Queryable,
  { log, everyMs = APP_TOTALS_ROLL_EVERY_MS }: { log: { error(obj: object, msg: string): void }; everyMs?: number },
): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = running.then(() =>
      rollAllAppTotals(db).then(
        () => undefined,
        (error: unknown) => log.error({ err: error }, 'rolling the apps’ running totals to today failed (retried at the next run)'),
      ),
    );
  };
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  // And a second after each UTC midnight, when every app's totals fall a day behind.
  let midnight: NodeJS.Timeout;
  const atMidnight = () => {
    const now = Date.now();
    midnight = setTimeout(
      () => {
        run();
        atMidnight();
      },
      DAY_MS - (now % DAY_MS) + 1000,
    );
    midnight.unref();
  };
  atMidnight();
  return {
    async stop() {
      clearInterval(timer);
      clearTimeout(midnight);
      await running;
    },
  };
}
