// Statements (/money/statements): a month (UTC) of the signed-in user's money, as a caller (credits:
// top-ups with their Stripe receipts, refunds and disputes, spend per app, subscriptions) or as a
// creator (revenue, platform fee, model cost, net, refunds seen, payouts), one block per currency,
// with a CSV download. The month and side are in the URL (?month=YYYY-MM&role=caller|creator); without
// a side, a creator (someone with apps) opens on their earnings and a caller on their spending (issue 61).
// The model cost is the calls' own, to the micro-dollar as analytics shows it; the ledger posts it in
// whole cents as it adds up, which the figure says when the two differ.

import type { CallerStatementCurrency, CreatorStatementCurrency, StatementRole } from '@tollbooth/contract';
import { type ReactNode, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { type DataColumn, DataTable } from '@/components/ui/data-table';
import { ErrorBox } from '@/components/ui/error-box';
import { PageSpinner } from '@/components/ui/spinner';
import { inputField, secondaryButton, textLink } from '@/components/ui/styles';
import { useApps } from '@/lib/api/apps/get-apps';
import { getErrorMessage } from '@/lib/errors';
import { formatMinor, formatModelCost } from '@/lib/format';
import { saveBlob } from '@/lib/save-blob';
import { downloadStatementCsv } from '../api/download-statement-csv';
import { useStatement } from '../api/get-statement';
import { useStatementMonths } from '../api/get-statement-months';
import { monthName, utcDay } from '../lib/statement-dates';

const card = 'rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200';

export const STATEMENT_LOAD_FAILED = 'Failed to load the statement';
export const STATEMENT_CSV_FAILED = 'Failed to download the CSV';

function Figure({ label, value, testId, note }: { label: string; value: string; testId?: string; note?: string }) {
  return (
    <div>
      <dt className="text-sm text-gray-500">{label}</dt>
      <dd className="mt-1 text-lg font-semibold text-gray-900 tabular-nums" data-testid={testId}>
        {value}
      </dd>
      {note ? <dd className="mt-0.5 text-xs text-gray-500">{note}</dd> : null}
    </div>
  );
}

/** A model cost in micro-dollars as a debit, to the micro-dollar (as analytics writes it). */
const modelCost = (micros: number) => (micros === 0 ? '$0.00' : formatModelCost(-micros / 1_000_000));
/** What the ledger has posted of it, when that is not the same amount. */
const postedNote = (micros: number, postedCents: number, currency: string) =>
  postedCents * 10_000 === micros ? undefined : `${formatMinor(-postedCents, currency)} posted in whole cents as costs add up`;

/** A titled table of the statement, left out when it has no rows. */
function StatementTable<Row>({ title, note, ...table }: { title: string; note?: string } & Omit<Parameters<typeof DataTable<Row>>[0], 'look'>) {
  if (table.rows.length === 0) return null;
  return (
    <Section title={title}>
      {note ? <p className="mb-2 text-sm text-gray-500">{note}</p> : null}
      <DataTable look="ledger" {...table} />
    </Section>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="mt-6">
      <h3 className="text-base font-semibold text-gray-900">{title}</h3>
      <div className="mt-2">{children}</div>
    </div>
  );
}

const balance = (value: number | null, currency: string) => (value === null ? '—' : formatMinor(value, currency));

export const callerHasActivity = (b: CallerStatementCurrency) =>
  b.top_ups.length + b.adjustments.length + b.spend_by_app.length + b.subscriptions.length + b.other.length > 0;
export const creatorHasActivity = (b: CreatorStatementCurrency) =>
  b.calls.length + b.subscriptions.length + b.refunds_seen.length + b.payouts.length + b.other.length > 0;

/** What happened to a subscription payment on the card, by the adjustment's kind. */
const CARD_ADJUSTMENT: Record<string, string> = {
  subscription_refund: 'Refunded to your card',
  subscription_dispute: 'Disputed with your card issuer',
  subscription_dispute_won: 'Dispute closed in the seller’s favour, the payment stands',
};

/** The columns the statement's tables share, for rows like these: a date, a text, an amount in the block's currency, a count. */
function columnsFor<Row>(_rows: readonly Row[], currency: string) {
  return {
    date: (date: (row: Row) => string | null, label = 'Date'): DataColumn<Row> => ({ label, cell: (row) => utcDay(date(row)) }),
    text: (label: string, cell: (row: Row) => ReactNode, className?: string): DataColumn<Row> => ({ label, cell, ...(className ? { className } : {}) }),
    amount: (label: string, amount: (row: Row) => number): DataColumn<Row> => ({ label, numeric: true, cell: (row) => formatMinor(amount(row), currency) }),
    calls: (calls: (row: Row) => number): DataColumn<Row> => ({ label: 'Calls', numeric: true, cell: (row) => calls(row).toLocaleString('en-US') }),
  };
}

function CallerBlock({ block }: { block: CallerStatementCurrency }) {
  const c = block.currency;
  const m = (value: number) => formatMinor(value, c);
  // Refunds and disputes of subscription payments went back to the card, not to credits: shown with the subscriptions.
  const forSubscription = (a: { kind: string }) => a.kind.startsWith('subscription_');
  const creditAdjustments = block.adjustments.filter((a) => !forSubscription(a));
  const subscriptionRefunds = block.adjustments.filter(forSubscription);
  const topUps = columnsFor(block.top_ups, c);
  const adjustments = columnsFor(creditAdjustments, c);
  const spend = columnsFor(block.spend_by_app, c);
  const subscriptions = columnsFor(block.subscriptions, c);
  return (
    <section className={card} aria-label={`Credits in ${c.toUpperCase()}`} data-testid={`caller-${c}`}>
      <h2 className="text-lg font-semibold text-gray-900">Credits · {c.toUpperCase()}</h2>
      <dl className="mt-4 grid grid-cols-2 gap-4 sm:grid-cols-4">
        <Figure label="Opening balance" value={balance(block.opening_balance_cents, c)} testId="opening-balance" />
        <Figure label="Top-ups" value={m(block.top_ups_cents)} testId="top-ups-total" />
        <Figure label="Refunds and disputes" value={m(block.refunds_cents + block.disputes_cents)} />
        <Figure label="Spent on calls" value={m(block.spend_cents)} testId="spend-total" />
        <Figure label="Other" value={m(block.other_cents)} />
        <Figure label="Subscriptions (card)" value={m(block.subscriptions_cents)} />
        {block.subscription_refunds_cents !== 0 ? (
          <Figure label="Subscription refunds and disputes (card)" value={m(block.subscription_refunds_cents)} />
        ) : null}
        <Figure label="Closing balance" value={balance(block.closing_balance_cents, c)} testId="closing-balance" />
      </dl>
      <StatementTable
        title="Top-ups"
        rows={block.top_ups}
        rowKey={(t) => `${t.date}-${t.payment_intent_id}`}
        columns={[
          topUps.date((row) => row.date),
          topUps.amount('Amount', (t) => t.amount_cents),
          topUps.text('Receipt', (t) =>
            t.receipt_url ? (
              <a className={textLink} href={t.receipt_url} target="_blank" rel="noreferrer noopener">
                Stripe receipt<span className="sr-only"> for the top-up of {utcDay(t.date)}</span>
              </a>
            ) : (
              <span className="text-gray-500">Not available yet</span>
            ),
          ),
        ]}
      />
      <StatementTable
        title="Refunds and disputes"
        rows={creditAdjustments}
        rowKey={(a) => `${a.date}-${a.reference}`}
        columns={[adjustments.date((row) => row.date), adjustments.text('What', (a) => a.description), adjustments.amount('Amount', (a) => a.amount_cents)]}
      />
      <StatementTable
        title="Spend per application"
        rows={block.spend_by_app}
        rowKey={(s) => s.app_slug}
        columns={[spend.text('Application', (s) => s.app_name), spend.calls((row) => row.calls), spend.amount('Amount', (s) => s.amount_cents)]}
      />
      {block.subscriptions.length + subscriptionRefunds.length > 0 ? (
        <Section title="Subscriptions">
          <DataTable
            look="ledger"
            rows={block.subscriptions}
            rowKey={(s) => `${s.date}-${s.invoice_id}`}
            columns={[
              subscriptions.date((row) => row.date, 'Paid'),
              subscriptions.text('Application', (s) => s.app_name),
              subscriptions.text('Plan', (s) => s.plan),
              subscriptions.text('Period', (s) => `${utcDay(s.period_start)} – ${utcDay(s.period_end)}`),
              subscriptions.amount('Amount', (s) => s.amount_cents),
            ]}
          >
            {subscriptionRefunds.map((a) => (
              <tr key={`${a.date}-${a.reference}`}>
                <td className="py-2 pr-4">{utcDay(a.date)}</td>
                <td className="py-2 pr-4" colSpan={3}>
                  {CARD_ADJUSTMENT[a.kind] ?? 'Refunded to your card'}: {a.description}
                </td>
                <td className="py-2 pr-4 text-right tabular-nums">{m(a.amount_cents)}</td>
              </tr>
            ))}
          </DataTable>
        </Section>
      ) : null}
      {block.other.length > 0 ? <OtherTable rows={block.other} currency={c} /> : null}
    </section>
  );
}

function OtherTable({ rows, currency }: { rows: { date: string; description: string; amount_cents: number }[]; currency: string }) {
  const other = columnsFor(rows, currency);
  return (
    <Section title="Other">
      {/* Rows of one statement, never reordered: keyed by place. */}
      <DataTable
        look="ledger"
        rows={rows}
        rowKey={(_, index) => index}
        columns={[other.date((row) => row.date), other.text('What', (o) => o.description), other.amount('Amount', (o) => o.amount_cents)]}
      />
    </Section>
  );
}

const PAYOUT_LABELS: Record<string, string> = {
  payout: 'Payout started',
  payout_sent: 'Transfer confirmed by Stripe',
  payout_failed: 'Payout failed: back in earnings',
  payout_reversed: 'Transfer reversed: back in earnings',
};

function CreatorBlock({ block }: { block: CreatorStatementCurrency }) {
  const c = block.currency;
  const m = (value: number) => formatMinor(value, c);
  const calls = columnsFor(block.calls, c);
  const subscriptions = columnsFor(block.subscriptions, c);
  const refunds = columnsFor(block.refunds_seen, c);
  const payouts = columnsFor(block.payouts, c);
  return (
    <section className={card} aria-label={`Earnings in ${c.toUpperCase()}`} data-testid={`creator-${c}`}>
      <h2 className="text-lg font-semibold text-gray-900">Earnings · {c.toUpperCase()}</h2>
      <dl className="mt-4 grid grid-cols-2 gap-4 sm:grid-cols-4">
        <Figure label="Opening balance" value={balance(block.opening_balance_cents, c)} testId="opening-balance" />
        <Figure label="Gross revenue" value={m(block.gross_cents)} testId="gross-total" />
        <Figure label="Platform fee" value={m(-block.fee_cents)} testId="fee-total" />
        {/* Model costs are micro-dollars: exact in a dollar block, the posted amount in any other currency. */}
        <Figure
          label="Model cost"
          value={c === 'usd' ? modelCost(block.model_cost_micros) : m(-block.model_cost_cents)}
          note={c === 'usd' ? postedNote(block.model_cost_micros, block.model_cost_cents, c) : undefined}
          testId="model-cost-total"
        />
        {block.model_cost_from_credits_cents !== 0 ? <Figure label="Model cost paid from credits" value={m(block.model_cost_from_credits_cents)} /> : null}
        {c === 'usd' && block.calls.length > 0 ? (
          <Figure
            label="Margin of the calls"
            value={formatModelCost(block.margin_micros / 1_000_000)}
            note="Gross − fee − model cost, as analytics shows it"
            testId="margin-total"
          />
        ) : null}
        <Figure label="Net" value={m(block.net_cents)} testId="net-total" />
        <Figure label="Payouts" value={m(block.payouts_cents)} testId="payouts-total" />
        <Figure label="Closing balance" value={balance(block.closing_balance_cents, c)} testId="closing-balance" />
      </dl>
      <StatementTable
        title="Per-call revenue"
        rows={block.calls}
        rowKey={(r) => r.app_slug}
        columns={[
          calls.text('Application', (r) => r.app_name),
          calls.calls((row) => row.calls),
          calls.amount('Gross', (r) => r.gross_cents),
          calls.amount('Fee', (r) => -r.fee_cents),
          { label: 'Model cost', numeric: true, cell: (r) => (c === 'usd' ? modelCost(r.model_cost_micros) : m(-r.model_cost_cents)) },
          calls.amount('Net', (r) => r.net_cents),
        ]}
      />
      <StatementTable
        title="Subscription revenue"
        rows={block.subscriptions}
        rowKey={(s) => `${s.date}-${s.invoice_id}`}
        columns={[
          subscriptions.date((row) => row.date, 'Paid'),
          subscriptions.text('Application', (s) => s.app_name),
          subscriptions.text('Plan', (s) => s.plan),
          subscriptions.amount('Gross', (s) => s.gross_cents),
          subscriptions.amount('Fee', (s) => -s.fee_cents),
          subscriptions.amount('Net', (s) => s.net_cents),
        ]}
      />
      <StatementTable
        title="Refunds seen"
        note="Subscription payments refunded to your subscribers or disputed by them. The platform bore them; your earnings keep the payment."
        rows={block.refunds_seen}
        rowKey={(r) => `${r.date}-${r.reference}`}
        columns={[
          refunds.date((row) => row.date),
          refunds.text('Application', (r) => r.app_name),
          refunds.text(
            'Plan',
            (r) => `${r.plan}${r.reference?.startsWith('dispute-won:') ? ' (dispute won)' : r.reference?.startsWith('dispute:') ? ' (disputed)' : ''}`,
          ),
          refunds.amount('Refunded', (r) => r.amount_cents),
        ]}
      />
      <StatementTable
        title="Payouts"
        rows={block.payouts}
        rowKey={(_, index) => index}
        columns={[
          payouts.date((row) => row.date),
          payouts.text('What', (p) => PAYOUT_LABELS[p.kind] ?? p.kind),
          payouts.text('Details', (p) => p.description, 'text-gray-600'),
          payouts.amount('Amount', (p) => p.amount_cents),
        ]}
      />
      {block.other.length > 0 ? <OtherTable rows={block.other} currency={c} /> : null}
    </section>
  );
}

function StatementBody({ month, role }: { month: string; role: StatementRole }) {
  const statement = useStatement(month, role);
  if (statement.isPending) return <PageSpinner message="Loading the statement..." />;
  if (statement.isError) return <ErrorBox message={`${STATEMENT_LOAD_FAILED}: ${getErrorMessage(statement.error)}`} />;
  const callers = (statement.data.caller ?? []).filter(callerHasActivity);
  const creators = (statement.data.creator ?? []).filter(creatorHasActivity);
  if (callers.length + creators.length === 0) {
    return (
      <p className={`${card} text-center text-gray-600`} data-testid="statement-empty">
        No activity in {monthName(month)}
      </p>
    );
  }
  return (
    <div className="space-y-6">
      {callers.map((block) => (
        <CallerBlock key={block.currency} block={block} />
      ))}
      {creators.map((block) => (
        <CreatorBlock key={block.currency} block={block} />
      ))}
    </div>
  );
}

export function StatementsPage() {
  const months = useStatementMonths();
  const [params, setParams] = useSearchParams();
  const apps = useApps();
  const asked = params.get('role');
  // Without a side in the URL: a creator's statement opens on the earnings, a caller's on the spending.
  const role: StatementRole = asked === 'creator' || asked === 'caller' ? asked : (apps.data?.length ?? 0) > 0 ? 'creator' : 'caller';
  const month = params.get('month') ?? months.data?.current ?? null;
  const [downloading, setDownloading] = useState(false);
  const [csvError, setCsvError] = useState<string | null>(null);
  const choose = (next: { month?: string; role?: StatementRole }) => {
    const merged = new URLSearchParams(params);
    if (next.month) merged.set('month', next.month);
    if (next.role) merged.set('role', next.role);
    setParams(merged, { replace: true });
  };
  const options = months.data ? [...new Set([...(month && !months.data.months.includes(month) ? [month] : []), ...months.data.months])] : [];

  async function download() {
    if (!month) return;
    setDownloading(true);
    setCsvError(null);
    try {
      const { blob, fileName } = await downloadStatementCsv(month, role);
      saveBlob(blob, fileName);
    } catch (cause) {
      setCsvError(`${STATEMENT_CSV_FAILED}: ${getErrorMessage(cause)}`);
    } finally {
      setDownloading(false);
    }
  }

  return (
    <div className="mx-auto max-w-7xl space-y-6 px-4 py-8 sm:px-6 lg:px-8">
      <div>
        <Link to="/money" className={`${textLink} text-sm`}>
          ← Money
        </Link>
        <h1 className="mt-2 text-2xl font-bold tracking-tight text-gray-900 sm:text-3xl">Statements</h1>
        <p className="mt-1 text-sm text-gray-600">
          Your money month by month (UTC), each figure from the ledger. Amounts in different currencies are never added.
        </p>
      </div>
      <div className="flex flex-wrap items-end gap-4">
        <fieldset>
          <legend className="text-sm font-medium text-gray-700">Statement for</legend>
          <div className="mt-1 inline-flex rounded-md shadow-sm">
            {(['caller', 'creator'] as const).map((value) => (
              <button
                key={value}
                type="button"
                aria-pressed={role === value}
                onClick={() => choose({ role: value })}
                className={`px-4 py-2 text-sm font-medium ring-1 ring-gray-300 ring-inset first:rounded-l-md last:rounded-r-md ${
                  role === value ? 'bg-indigo-600 text-white ring-indigo-600' : 'bg-white text-gray-900 hover:bg-gray-50'
                }`}
              >
                {value === 'caller' ? 'Your spending' : 'Your earnings'}
              </button>
            ))}
          </div>
        </fieldset>
        <label className="block text-sm font-medium text-gray-700">
          Month
          <select className={inputField} value={month ?? ''} onChange={(e) => choose({ month: e.target.value })} disabled={!months.data}>
            {options.map((value) => (
              <option key={value} value={value}>
                {monthName(value)}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className={secondaryButton} onClick={download} disabled={!month || downloading}>
          {downloading ? 'Downloading...' : 'Download CSV'}
        </button>
      </div>
      {csvError ? <ErrorBox message={csvError} /> : null}
      {months.isError ? <ErrorBox message={`${STATEMENT_LOAD_FAILED}: ${getErrorMessage(months.error)}`} /> : null}
      {(months.isPending && !params.get('month')) || (!asked && apps.isPending) ? (
        <PageSpinner message="Loading your statements..." />
      ) : month ? (
        <StatementBody month={month} role={role} />
      ) : null}
    </div>
  );
}
