// /operator: the operator's view (issue 22) for accounts whose verified email ADMIN_EMAILS lists.
// What callers paid, creators' net, platform fees and model cost per day over 7, 30 or 90 days, by
// provider and by model, and the accounts and apps that cost the most. Anyone else sees the app's
// 404 page, as the API answers them 404.
import type { OperatorOverview, OperatorTopCosts } from '@tollbooth/contract';
import { type ReactNode, useState } from 'react';
import { ErrorBox } from '@/components/ui/error-box';
import { PageSpinner } from '@/components/ui/spinner';
import { getErrorMessage, isUnauthorizedError } from '@/lib/errors';
import { formatMinor } from '@/lib/format';
import { useOperatorAccess } from '../api/get-operator-access';
import { useOperatorOverview, useOperatorTopCosts } from '../api/get-operator-reports';
import type { OperatorPeriod } from '../api/operator-keys';
import { type MoneyColumn, MoneyTable } from '../components/money-table';
import { OperatorChart } from '../components/operator-chart';
import { centsText, chartPoints, microsText } from '../lib/operator-format';

const PERIODS: OperatorPeriod[] = [7, 30, 90];
const periodButton =
  'px-3 py-1.5 text-sm font-medium first:rounded-l-md last:rounded-r-md focus-visible:relative focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600';

type Figures = OperatorOverview['totals'];

const net = (micros: number) => <span className={micros < 0 ? 'text-red-700' : undefined}>{microsText(micros)}</span>;
const count = (value: number) => value.toLocaleString('en-US');

/** The money columns every table shares. */
function moneyColumns<Row extends Pick<Figures, 'paid_cents' | 'fee_cents' | 'model_cost_micros' | 'creators_net_micros'>>(): MoneyColumn<Row>[] {
  return [
    { label: 'Callers paid', numeric: true, cell: (row) => centsText(row.paid_cents) },
    { label: 'Platform fees', numeric: true, cell: (row) => centsText(row.fee_cents) },
    { label: 'Model cost', numeric: true, cell: (row) => microsText(row.model_cost_micros) },
    { label: "Creators' net", numeric: true, cell: (row) => net(row.creators_net_micros) },
  ];
}

function Summary({ totals }: { totals: Figures }) {
  const cards = [
    { label: 'Callers paid', value: centsText(totals.paid_cents) },
    { label: "Creators' net", value: microsText(totals.creators_net_micros), negative: totals.creators_net_micros < 0 },
    { label: 'Platform fees', value: centsText(totals.fee_cents) },
    { label: 'Model cost', value: microsText(totals.model_cost_micros) },
  ];
  return (
    <dl aria-label="Summary" className="grid grid-cols-1 gap-5 sm:grid-cols-2 lg:grid-cols-4">
      {cards.map((card) => (
        <div key={card.label} className="rounded-lg bg-white p-5 shadow-sm ring-1 ring-gray-200" data-testid={`operator-stat-${card.label}`}>
          <dt className="truncate text-sm font-medium text-gray-500">{card.label}</dt>
          <dd className={`mt-1 text-3xl font-semibold tracking-tight ${card.negative ? 'text-red-700' : 'text-gray-900'}`}>{card.value}</dd>
        </div>
      ))}
      <p className="text-sm text-gray-600 sm:col-span-2 lg:col-span-4">
        {count(totals.calls)} calls and {count(totals.test_runs)} test runs. Creators' net is what callers paid less platform fees and model cost.
      </p>
    </dl>
  );
}

function Overview({ overview }: { overview: OperatorOverview }) {
  return (
    <div className="space-y-8">
      <Summary totals={overview.totals} />
      {overview.other_currency_revenue.length > 0 ? (
        <p className="text-sm text-gray-600" data-testid="operator-other-currencies">
          Subscriptions paid in other currencies, kept apart (never converted or added to the figures above):{' '}
          {overview.other_currency_revenue.map((r) => formatMinor(r.amount_minor, r.currency)).join(' · ')}
        </p>
      ) : null}
      <OperatorChart points={chartPoints(overview.daily)} />
      <div className="space-y-6">
        <MoneyTable
          title="By provider"
          rows={overview.by_provider}
          rowKey={(row) => row.provider}
          empty="No calls in this period."
          columns={[
            { label: 'Provider', cell: (row) => row.provider || 'unknown' },
            { label: 'Calls', numeric: true, cell: (row) => count(row.calls) },
            ...moneyColumns(),
          ]}
        />
        <MoneyTable
          title="By model"
          rows={overview.by_model}
          rowKey={(row) => `${row.provider}/${row.model}`}
          empty="No calls in this period."
          columns={[
            { label: 'Model', cell: (row) => <span className="font-mono">{row.model || 'unknown'}</span> },
            { label: 'Calls', numeric: true, cell: (row) => count(row.calls) },
            { label: 'Tests', numeric: true, cell: (row) => count(row.test_runs) },
            ...moneyColumns(),
          ]}
        />
      </div>
    </div>
  );
}

function TopCosts({ top }: { top: OperatorTopCosts }) {
  return (
    <div className="space-y-6">
      <MoneyTable
        title="Accounts that cost the most"
        rows={top.accounts}
        rowKey={(row) => row.user_id}
        empty="No model cost in this period."
        columns={[
          {
            label: 'Account',
            cell: (row) => (
              <>
                <span className="font-medium">{row.display_name || row.email}</span>
                {row.display_name ? <span className="block text-xs text-gray-500">{row.email}</span> : null}
              </>
            ),
          },
          { label: 'Apps', numeric: true, cell: (row) => count(row.apps) },
          { label: 'Calls', numeric: true, cell: (row) => count(row.calls) },
          { label: 'Tests', numeric: true, cell: (row) => count(row.test_runs) },
          ...moneyColumns(),
        ]}
      />
      <MoneyTable
        title="Apps that cost the most"
        rows={top.apps}
        rowKey={(row) => row.app_id}
        empty="No model cost in this period."
        columns={[
          {
            label: 'App',
            cell: (row) => (
              <>
                <span className="font-medium">{row.name}</span>
                {row.deleted ? <span className="ml-2 text-xs text-gray-500">(deleted)</span> : null}
                <span className="block font-mono text-xs text-gray-500">{row.slug}</span>
              </>
            ),
          },
          { label: 'Owner', cell: (row) => row.owner_email },
          { label: 'Price', numeric: true, cell: (row) => centsText(row.price_cents) },
          { label: 'Calls', numeric: true, cell: (row) => count(row.calls) },
          ...moneyColumns(),
        ]}
      />
    </div>
  );
}

function failure(error: unknown): ReactNode {
  return isUnauthorizedError(error) ? null : <ErrorBox message={`Failed to load the operator view: ${getErrorMessage(error)}`} />;
}

export function OperatorPage({ notFound }: { notFound: ReactNode }) {
  const [days, setDays] = useState<OperatorPeriod>(30);
  const access = useOperatorAccess();
  const allowed = access.data === true;
  const overview = useOperatorOverview(days, { enabled: allowed });
  const top = useOperatorTopCosts(days, { enabled: allowed });

  if (access.isPending) return <PageSpinner message="Loading..." />;
  if (access.isError) return <div className="mx-auto max-w-7xl px-4 py-8 sm:px-6 lg:px-8">{failure(access.error)}</div>;
  if (!allowed) return notFound;

  return (
    <div className="mx-auto max-w-7xl px-4 py-8 sm:px-6 lg:px-8">
      <div className="flex flex-col gap-4 sm:flex-row sm:items-center sm:justify-between">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-gray-900 sm:text-3xl">Operator</h1>
          <p className="mt-1 text-sm text-gray-600">What callers paid, what creators kept, platform fees and the model bill, per UTC day.</p>
        </div>
        {/* biome-ignore lint/a11y/useSemanticElements: a group of toggle buttons, not a form fieldset */}
        <div role="group" aria-label="Period" className="isolate inline-flex shadow-sm">
          {PERIODS.map((period) => (
            <button
              key={period}
              type="button"
              aria-pressed={period === days}
              className={`${periodButton} ${period === days ? 'bg-indigo-600 text-white' : 'bg-white text-gray-700 ring-1 ring-gray-300 ring-inset hover:bg-gray-50'}`}
              onClick={() => setDays(period)}
            >
              {period}d
            </button>
          ))}
        </div>
      </div>
      <div className="mt-8 space-y-8">
        {overview.isError ? failure(overview.error) : overview.data ? <Overview overview={overview.data} /> : <PageSpinner message="Loading..." />}
        {top.isError ? failure(top.error) : top.data ? <TopCosts top={top.data} /> : null}
      </div>
    </div>
  );
}
