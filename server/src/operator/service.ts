// The operator's view (issue 22, item 7): what callers paid, creators' net, platform fees and
// model cost per day, by provider and by model, and the accounts and apps that cost the most.
// Only accounts whose verified email ADMIN_EMAILS lists may read it; for anyone else (signed in
// or not) every endpoint is the 404 of a route that does not exist, so the view is not even seen
// to exist. See docs/decisions/0033-operator-view-and-margins.md.
import type { OperatorAccess, OperatorOverview, OperatorTopCosts } from '@tollbooth/contract';
import type { AuthContext } from '../auth/plugin.ts';
import type { Queryable } from '../db/client.ts';
import { AppError } from '../platform/errors.ts';
import { type ModelDayRow, selectCurrencyRevenue, selectPlatformModelDays, selectTopAccounts, selectTopApps } from './queries.ts';

export interface OperatorDependencies {
  db: Queryable;
  /** ADMIN_EMAILS, lower-cased. */
  adminEmails: readonly string[];
  /** The clock that decides which day is today; tests may pin it. */
  now?: () => Date;
}

/** How many accounts and apps the "cost the most" lists show. */
export const TOP_LIMIT = 10;
const MICROS_PER_CENT = 10_000;
const DAY_MS = 86_400_000;

/** The same answer as for a route that does not exist (web-app/serve-web-app.ts's not-found handler). */
export const hiddenRoute = (method: string, url: string) => new AppError('not_found', `Route ${method} ${url.split('?')[0]} not found`);

/** ISO days (UTC), oldest first, of the last `days` days ending today. */
function periodDays(days: number, now: Date): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

type Figures = OperatorOverview['totals'];
const zero = (): Figures => ({ calls: 0, test_runs: 0, paid_cents: 0, fee_cents: 0, model_cost_micros: 0, creators_net_micros: 0 });

/** Creators' net in micro-dollars: what callers paid, less the platform fee and the model cost, exactly. */
export const creatorsNetMicros = (paidCents: number, feeCents: number, modelCostMicros: number) => (paidCents - feeCents) * MICROS_PER_CENT - modelCostMicros;

function add(into: Figures, row: Pick<ModelDayRow, 'calls' | 'test_runs' | 'paid_cents' | 'fee_cents' | 'model_cost_micros'>) {
  into.calls += row.calls;
  into.test_runs += row.test_runs;
  into.paid_cents += row.paid_cents;
  into.fee_cents += row.fee_cents;
  into.model_cost_micros += row.model_cost_micros;
  into.creators_net_micros = creatorsNetMicros(into.paid_cents, into.fee_cents, into.model_cost_micros);
}

const byCostThenPaid = (a: Figures, b: Figures) => b.model_cost_micros - a.model_cost_micros || b.paid_cents - a.paid_cents;

export function createOperatorService({ db, adminEmails, now = () => new Date() }: OperatorDependencies) {
  const admins = new Set(adminEmails.map((email) => email.toLowerCase()));

  /** The operator's verified email (signed in with an access token whose email ADMIN_EMAILS lists), else null. */
  const operatorEmail = (auth: AuthContext | null): string | null => {
    const email = auth && auth.apiKey === null ? auth.verifiedEmail : null;
    return email && admins.has(email) ? email : null;
  };

  return {
    operatorEmail,

    readAccess(email: string): OperatorAccess {
      return { operator: true, email };
    },

    async readOverview(days: number): Promise<OperatorOverview> {
      const period = periodDays(days, now());
      const [rows, otherCurrencies] = await Promise.all([
        selectPlatformModelDays(db, period[0]!, period.at(-1)!),
        selectCurrencyRevenue(db, period[0]!, period.at(-1)!),
      ]);
      const totals = zero();
      const perDay = new Map(period.map((day) => [day, zero()]));
      const perProvider = new Map<string, Figures>();
      const perModel = new Map<string, Figures & { provider: string; model: string }>();
      for (const row of rows) {
        add(totals, row);
        const day = perDay.get(row.day);
        if (day) add(day, row);
        const provider = perProvider.get(row.provider) ?? zero();
        perProvider.set(row.provider, provider);
        add(provider, row);
        const key = `${row.provider}\u0000${row.model}`;
        const model = perModel.get(key) ?? { provider: row.provider, model: row.model, ...zero() };
        perModel.set(key, model);
        add(model, row);
      }
      return {
        days,
        totals,
        daily: period.map((date) => ({ date, ...perDay.get(date)! })),
        by_provider: [...perProvider].map(([provider, figures]) => ({ provider, ...figures })).sort(byCostThenPaid),
        by_model: [...perModel.values()].sort(byCostThenPaid),
        other_currency_revenue: otherCurrencies,
      };
    },

    async readTopCosts(days: number): Promise<OperatorTopCosts> {
      const period = periodDays(days, now());
      const [start, end] = [period[0]!, period.at(-1)!];
      const [accounts, apps] = await Promise.all([selectTopAccounts(db, start, end, TOP_LIMIT), selectTopApps(db, start, end, TOP_LIMIT)]);
      return {
        days,
        accounts: accounts.map((row) => ({ ...row, creators_net_micros: creatorsNetMicros(row.paid_cents, row.fee_cents, row.model_cost_micros) })),
        apps: apps.map((row) => ({ ...row, creators_net_micros: creatorsNetMicros(row.paid_cents, row.fee_cents, row.model_cost_micros) })),
      };
    },
  };
}

export type OperatorService = ReturnType<typeof createOperatorService>;
