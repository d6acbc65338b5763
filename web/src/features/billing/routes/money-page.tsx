// Money (/money): the signed-in user's credit and earnings balances, the ledger statement with
// filters and CSV export, a credits top-up paid by card (at least $5), and getting paid (payouts-panel).

import { Elements, PaymentElement } from '@stripe/react-stripe-js';
import { useQueryClient } from '@tanstack/react-query';
import type { LedgerEntry } from '@tollbooth/contract';
import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { ErrorBox } from '@/components/ui/error-box';
import { Options } from '@/components/ui/options';
import { PageSpinner } from '@/components/ui/spinner';
import { inputField, primaryButton, secondaryButton } from '@/components/ui/styles';
import { useApps } from '@/lib/api/apps/get-apps';
import { getErrorMessage } from '@/lib/errors';
import { formatCents, formatDateTime, formatMinor } from '@/lib/format';
import { useRuntimeConfig } from '@/lib/runtime-config';
import { billingKeys } from '../api/billing-keys';
import { confirmTopUp } from '../api/confirm-top-up';
import { createTopUp } from '../api/create-top-up';
import { useBalance } from '../api/get-balance';
import { fetchLedgerPage } from '../api/get-ledger';
import { usePayouts } from '../api/get-payouts';
import { StripeNotConfigured } from '../components/bits';
import { PayoutsPanel } from '../components/payouts-panel';
import { PAYMENT_METHOD_ORDER, PAYMENT_NOT_COMPLETED, stripePromise } from '../lib/stripe';
import { useStripeSubmit } from '../lib/use-stripe-submit';

const MIN_TOP_UP_CENTS = 500;
const card = 'rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200';

/** Every ledger entry of the user, newest first (the statement is read whole for filtering and CSV). */
function useFullLedger() {
  const [entries, setEntries] = useState<LedgerEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: version re-reads on demand
  useEffect(() => {
    let live = true;
    (async () => {
      const all: LedgerEntry[] = [];
      let cursor: string | null = null;
      do {
        const page = await fetchLedgerPage(cursor);
        all.push(...page.results);
        cursor = page.next_cursor;
      } while (cursor && all.length < 10_000);
      if (live) setEntries(all);
    })().catch((cause: unknown) => live && setError(getErrorMessage(cause)));
    return () => {
      live = false;
    };
  }, [version]);
  return { entries, error, reload: () => setVersion((v) => v + 1) };
}

const csvCell = (value: string | number) => (/[",\n]/.test(String(value)) ? `"${String(value).replace(/"/g, '""')}"` : String(value));

/**
 * The statement as CSV. amount_cents is in minor units of the entry's currency (last column);
 * amount_dollars is filled for US-dollar entries only: a dong or yen amount is never written as dollars.
 */
export function ledgerCsv(entries: LedgerEntry[]): string {
  const rows = entries.map((e) => {
    const currency = e.currency ?? 'usd';
    const dollars = currency === 'usd' ? (e.amount_cents / 100).toFixed(2) : '';
    return [e.created_at, e.account, e.kind, e.description, dollars, e.amount_cents, e.transaction_id, currency].map(csvCell).join(',');
  });
  return ['date,account,kind,description,amount_dollars,amount_cents,transaction_id,currency', ...rows].join('\n');
}

function TopUpForm({ amountCents, onDone, onError }: { amountCents: number; onDone: () => void; onError: (message: string) => void }) {
  const { stripe, busy, submit } = useStripeSubmit(onError, async (stripe, elements) => {
    const { error, paymentIntent } = await stripe.confirmPayment({
      elements,
      redirect: 'if_required',
      confirmParams: { return_url: `${window.location.origin}/billing/success?kind=top-up` },
    });
    if (error) return onError(error.message ?? PAYMENT_NOT_COMPLETED);
    if (paymentIntent?.status !== 'succeeded') return onError(PAYMENT_NOT_COMPLETED);
    await confirmTopUp(paymentIntent.id);
    onDone();
  });
  return (
    <form onSubmit={submit} className="mt-4 space-y-4">
      <PaymentElement options={{ paymentMethodOrder: PAYMENT_METHOD_ORDER }} />
      <button type="submit" className={primaryButton} disabled={busy || !stripe}>
        {busy ? 'Processing...' : `Pay ${formatCents(amountCents)}`}
      </button>
    </form>
  );
}

function TopUp({ onDone }: { onDone: () => void }) {
  const { stripe_publishable_key: publishableKey } = useRuntimeConfig();
  const [dollars, setDollars] = useState('10');
  const [secret, setSecret] = useState<{ clientSecret: string; amountCents: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const cents = Math.round(Number(dollars) * 100);
  async function start(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setDone(false);
    if (!Number.isFinite(cents) || cents < MIN_TOP_UP_CENTS) return setError('The minimum top-up is $5.00');
    try {
      const topUp = await createTopUp(cents);
      setSecret({ clientSecret: topUp.client_secret, amountCents: cents });
    } catch (cause) {
      setError(getErrorMessage(cause));
    }
  }
  return (
    <section className={card} aria-labelledby="topup-title">
      <h2 id="topup-title" className="text-lg font-semibold text-gray-900">
        Add credits
      </h2>
      {!publishableKey ? (
        <div className="mt-3">
          <StripeNotConfigured />
        </div>
      ) : secret ? (
        <Elements stripe={stripePromise(publishableKey)} options={{ clientSecret: secret.clientSecret }}>
          <TopUpForm
            amountCents={secret.amountCents}
            onError={(message) => {
              setSecret(null);
              setError(message);
            }}
            onDone={() => {
              setSecret(null);
              setDone(true);
              onDone();
            }}
          />
        </Elements>
      ) : (
        <form onSubmit={start} className="mt-3 flex items-end gap-3">
          <label className="block text-sm font-medium text-gray-700">
            Amount (USD, minimum $5)
            <input className={inputField} type="number" min="5" step="0.01" value={dollars} onChange={(e) => setDollars(e.target.value)} />
          </label>
          <button type="submit" className={primaryButton}>
            Continue
          </button>
        </form>
      )}
      {error ? <p className="mt-3 text-sm text-red-700">{error}</p> : null}
      {done ? <p className="mt-3 text-sm text-green-700">Your credits were added.</p> : null}
    </section>
  );
}

export function MoneyPage() {
  const balance = useBalance();
  const ledger = useFullLedger();
  // Earnings in other currencies than the dollar, each in its own unit (the payouts overview keeps them per currency).
  const payouts = usePayouts();
  const otherEarnings = (payouts.data?.balances ?? []).filter((b) => b.currency !== 'usd' && b.pending_cents + b.available_cents !== 0);
  const apps = useApps();
  const isCreator =
    (apps.data?.length ?? 0) > 0 ||
    (balance.data?.earnings_cents ?? 0) !== 0 ||
    payouts.data?.account != null ||
    (payouts.data?.balances ?? []).some((b) => b.pending_cents + b.available_cents !== 0);
  const queryClient = useQueryClient();
  const [account, setAccount] = useState<'all' | 'credits' | 'earnings'>('all');
  const [kind, setKind] = useState('all');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const kinds = useMemo(() => [...new Set((ledger.entries ?? []).map((e) => e.kind))].sort(), [ledger.entries]);
  const shown = useMemo(
    () =>
      (ledger.entries ?? []).filter(
        (e) =>
          (account === 'all' || e.account === account) &&
          (kind === 'all' || e.kind === kind) &&
          (!from || e.created_at.slice(0, 10) >= from) &&
          (!to || e.created_at.slice(0, 10) <= to),
      ),
    [ledger.entries, account, kind, from, to],
  );

  function downloadCsv() {
    const blob = new Blob([ledgerCsv(shown)], { type: 'text/csv' });
    const link = document.createElement('a');
    link.href = URL.createObjectURL(blob);
    link.download = 'tollbooth-statement.csv';
    link.click();
    URL.revokeObjectURL(link.href);
  }

  if (balance.isPending) return <PageSpinner message="Loading your money..." />;
  return (
    <div className="mx-auto max-w-7xl space-y-6 px-4 py-8 sm:px-6 lg:px-8">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-bold tracking-tight text-gray-900 sm:text-3xl">Money</h1>
        <Link to="/money/statements" className={secondaryButton}>
          Monthly statements
        </Link>
      </div>
      {balance.isError ? <ErrorBox message={getErrorMessage(balance.error)} /> : null}
      <div className="grid gap-6 md:grid-cols-2">
        <div className={card}>
          <p className="text-sm text-gray-500">Credit balance</p>
          <p className="mt-1 text-3xl font-bold text-gray-900" data-testid="credits-balance">
            {formatCents(balance.data?.credits_cents ?? 0)}
          </p>
        </div>
        <div className={card}>
          <p className="text-sm text-gray-500">Earnings balance</p>
          <p className="mt-1 text-3xl font-bold text-gray-900" data-testid="earnings-balance">
            {formatCents(balance.data?.earnings_cents ?? 0)}
          </p>
          {otherEarnings.length > 0 ? (
            <ul className="mt-2 space-y-1 text-lg font-semibold text-gray-900">
              {otherEarnings.map((b) => (
                <li key={b.currency} data-testid={`earnings-balance-${b.currency}`}>
                  {formatMinor(b.pending_cents + b.available_cents, b.currency)}
                  <span className="ml-2 text-xs font-normal text-gray-500">{b.currency.toUpperCase()}, kept apart</span>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      </div>
      {/* Getting paid is a creator's (issue 61): shown to someone with apps, earnings or a payout account, not to a caller. */}
      {isCreator ? <PayoutsPanel onMoneyMoved={ledger.reload} /> : null}
      <TopUp
        onDone={() => {
          void queryClient.invalidateQueries({ queryKey: billingKeys.balance });
          ledger.reload();
        }}
      />
      <section className={card} aria-labelledby="statement-title">
        <div className="flex flex-wrap items-end justify-between gap-3">
          <h2 id="statement-title" className="text-lg font-semibold text-gray-900">
            Statement
          </h2>
          <div className="flex flex-wrap items-end gap-3 text-sm">
            <label>
              Account
              <select className={inputField} value={account} onChange={(e) => setAccount(e.target.value as typeof account)}>
                <option value="all">All</option>
                <option value="credits">Credits</option>
                <option value="earnings">Earnings</option>
              </select>
            </label>
            <label>
              Kind
              <select className={inputField} value={kind} onChange={(e) => setKind(e.target.value)}>
                <option value="all">All</option>
                <Options options={kinds} />
              </select>
            </label>
            <label>
              From
              <input className={inputField} type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
            </label>
            <label>
              To
              <input className={inputField} type="date" value={to} onChange={(e) => setTo(e.target.value)} />
            </label>
            <button type="button" className={secondaryButton} onClick={downloadCsv} disabled={shown.length === 0}>
              Export CSV
            </button>
          </div>
        </div>
        {ledger.error ? <ErrorBox message={ledger.error} /> : null}
        {ledger.entries === null && !ledger.error ? (
          <p className="mt-4 text-sm text-gray-500">Loading…</p>
        ) : (
          <table className="mt-4 w-full text-left text-sm">
            <thead className="text-gray-500">
              <tr>
                <th className="py-2">Date</th>
                <th>Account</th>
                <th>Kind</th>
                <th>Description</th>
                <th className="text-right">Amount</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-gray-200" data-testid="statement">
              {shown.map((e) => (
                <tr key={e.id}>
                  <td className="py-2 text-gray-600">{formatDateTime(e.created_at)}</td>
                  <td>{e.account}</td>
                  <td>{e.kind}</td>
                  <td>{e.description}</td>
                  <td className={`text-right font-mono ${e.amount_cents < 0 ? 'text-red-700' : 'text-green-700'}`}>
                    {e.amount_cents < 0 ? '−' : '+'}
                    {formatMinor(Math.abs(e.amount_cents), e.currency ?? 'usd')}
                  </td>
                </tr>
              ))}
              {shown.length === 0 ? (
                <tr>
                  <td colSpan={5} className="py-6 text-center text-gray-500">
                    No entries
                  </td>
                </tr>
              ) : null}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
