// "Get paid" on the Money page (issue 23): connect a Stripe account (Stripe-hosted onboarding), what
// Stripe still asks for, earnings pending / available / in transit / paid out, Withdraw now, the
// payout schedule and the recent payouts with why one failed or came back. Earnings are kept and
// paid per currency (decision 0035): each currency has its own figures, in its own unit (₫90,000,
// ¥1,800, $25.00), and is never added to another.
import { useQueryClient } from '@tanstack/react-query';
import type { EarningsBalance, Payout, PayoutSchedule, PayoutsOverview } from '@tollbooth/contract';
import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { ErrorLine } from '@/components/ui/form-alert';
import { inputField, primaryButton, secondaryButton } from '@/components/ui/styles';
import { getErrorMessage } from '@/lib/errors';
import { formatDateTime, formatMinor } from '@/lib/format';
import { billingKeys, payoutsKey } from '../api/billing-keys';
import { disconnectAccount } from '../api/disconnect-account';
import { usePayouts } from '../api/get-payouts';
import { refreshAccount } from '../api/refresh-account';
import { setPayoutSchedule } from '../api/set-payout-schedule';
import { startOnboarding } from '../api/start-onboarding';
import { withdrawNow } from '../api/withdraw-now';
import { Badge } from './bits';

const card = 'rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200';

/** Stripe's requirement names, made readable ("individual.verification.document" → "individual verification document"). */
const readable = (requirement: string) => requirement.replace(/[._]/g, ' ');

const payoutTone = (status: Payout['status']) => (status === 'paid' ? 'green' : status === 'sending' ? 'yellow' : 'red');
const payoutLabel: Record<Payout['status'], string> = { sending: 'In transit', paid: 'Paid', failed: 'Failed', reversed: 'Reversed' };

function Figure({ label, cents, currency, hint, testId }: { label: string; cents: number; currency: string; hint: string; testId: string }) {
  return (
    <div className="rounded-md bg-gray-50 p-4">
      <p className="text-sm text-gray-500">{label}</p>
      <p className="mt-1 text-2xl font-semibold text-gray-900" data-testid={testId}>
        {formatMinor(cents, currency)}
      </p>
      <p className="mt-1 text-xs text-gray-500">{hint}</p>
    </div>
  );
}

/** `onMoneyMoved`: a withdrawal or a change of the account moved money, so the page's statement is read again. */
export function PayoutsPanel({ onMoneyMoved }: { onMoneyMoved?: () => void } = {}) {
  const payouts = usePayouts();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const returned = useRef(false);

  const show = (overview: PayoutsOverview) => {
    queryClient.setQueryData(payoutsKey, overview);
  };
  const run = async (what: string, action: () => Promise<void>) => {
    setBusy(what);
    setError(null);
    setNotice(null);
    try {
      await action();
    } catch (cause) {
      setError(getErrorMessage(cause));
    } finally {
      setBusy(null);
      void queryClient.invalidateQueries({ queryKey: payoutsKey });
      void queryClient.invalidateQueries({ queryKey: billingKeys.balance });
      onMoneyMoved?.();
    }
  };
  const onboard = () =>
    run('connect', async () => {
      const { url } = await startOnboarding();
      window.location.assign(url);
    });

  // Back from Stripe: the return URL does not mean finished, so ask Stripe; an expired link gets a new one.
  const connect = params.get('connect');
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per return from Stripe
  useEffect(() => {
    if (!connect || returned.current) return;
    returned.current = true;
    setParams(
      (next) => {
        next.delete('connect');
        return next;
      },
      { replace: true },
    );
    if (connect === 'refresh') void onboard();
    else void run('refresh', async () => show(await refreshAccount()));
  }, [connect]);

  if (payouts.isPending) return null;
  if (payouts.isError) return <p className="text-sm text-red-700">{getErrorMessage(payouts.error)}</p>;
  const data = payouts.data;
  const usd: EarningsBalance = data.balances.find((b) => b.currency === 'usd') ?? {
    currency: 'usd',
    pending_cents: 0,
    available_cents: 0,
    in_transit_cents: 0,
    paid_out_cents: 0,
    minimum_cents: data.minimum_cents,
  };
  // US dollars first, then each other currency the creator has earned in, each on its own.
  const balances = [usd, ...data.balances.filter((b) => b.currency !== 'usd')];
  const account = data.account;
  const ready = account?.transfers_active ?? false;
  const sending = data.payouts.find((p) => p.status === 'sending');
  const withdrawable = balances.filter((b) => b.available_cents > 0 && b.available_cents >= b.minimum_cents);
  const belowMinimum = withdrawable.length === 0;
  const minimums = balances.map((b) => formatMinor(b.minimum_cents, b.currency)).join(', ');
  const withdrawLabel =
    withdrawable.length > 0 ? withdrawable.map((b) => formatMinor(b.available_cents, b.currency)).join(' + ') : formatMinor(usd.available_cents, 'usd');

  return (
    <section className={card} aria-labelledby="payouts-title">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h2 id="payouts-title" className="text-lg font-semibold text-gray-900">
            Get paid
          </h2>
          <p className="mt-1 text-sm text-gray-600">
            Earnings become available {data.hold_days} days after they are earned (refunds and disputes are settled meanwhile) and go to your Stripe account
            from {minimums}, in the currency they were earned in.
          </p>
        </div>
        {account ? (
          <div className="flex items-center gap-2" data-testid="connect-state">
            {ready ? <Badge tone="green">Payouts on</Badge> : <Badge tone="yellow">Onboarding incomplete</Badge>}
            <span className="font-mono text-xs text-gray-500">{account.stripe_account_id}</span>
          </div>
        ) : null}
      </div>

      {balances.map((balance) => {
        // The US-dollar figures keep their first test ids; other currencies' carry the currency.
        const suffix = balance.currency === 'usd' ? '' : `-${balance.currency}`;
        const c = balance.currency;
        return (
          <div key={c} className="mt-4" data-testid={`earnings-${c}`}>
            {balances.length > 1 ? (
              <h3 className="mb-2 text-sm font-medium text-gray-700">
                {c.toUpperCase()} earnings{c === 'usd' ? '' : ' (kept and paid in this currency)'}
              </h3>
            ) : null}
            <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
              <Figure
                label="Pending"
                cents={balance.pending_cents}
                currency={c}
                hint={`Earned in the last ${data.hold_days} days`}
                testId={`earnings-pending${suffix}`}
              />
              <Figure label="Available" cents={balance.available_cents} currency={c} hint="Ready to withdraw" testId={`earnings-available${suffix}`} />
              <Figure label="In transit" cents={balance.in_transit_cents} currency={c} hint="On its way to Stripe" testId={`earnings-in-transit${suffix}`} />
              <Figure label="Paid out" cents={balance.paid_out_cents} currency={c} hint="Sent to your Stripe account" testId={`earnings-paid-out${suffix}`} />
            </div>
          </div>
        );
      })}

      {!data.stripe_configured ? (
        <p role="note" className="mt-4 rounded-md bg-yellow-50 p-4 text-sm text-yellow-800 ring-1 ring-yellow-200">
          Stripe is not configured on this server, so earnings cannot be paid out.
        </p>
      ) : !account ? (
        <div className="mt-4 flex flex-wrap items-center gap-3">
          <button type="button" className={primaryButton} onClick={onboard} disabled={busy !== null}>
            {busy === 'connect' ? 'Opening Stripe…' : 'Connect Stripe account'}
          </button>
          <p className="text-sm text-gray-600">Stripe asks who you are and where to send the money; you come back here afterwards.</p>
        </div>
      ) : (
        <div className="mt-4 space-y-4">
          {!ready ? (
            <div role="status" className="rounded-md bg-yellow-50 p-4 text-sm text-yellow-900 ring-1 ring-yellow-200">
              <p className="font-medium">
                {account.details_submitted ? 'Stripe is reviewing your account or needs more.' : 'Finish setting up your Stripe account to get paid.'}
              </p>
              {account.requirements_due.length > 0 ? (
                <p className="mt-1" data-testid="requirements-due">
                  Stripe still asks for: {account.requirements_due.map(readable).join(', ')}.
                </p>
              ) : null}
              <button type="button" className={`${primaryButton} mt-3`} onClick={onboard} disabled={busy !== null}>
                {busy === 'connect' ? 'Opening Stripe…' : 'Continue on Stripe'}
              </button>
            </div>
          ) : null}
          {account.last_bank_payout_failure ? (
            <p role="alert" className="rounded-md bg-red-50 p-3 text-sm text-red-800 ring-1 ring-red-200">
              Stripe could not pay out to your bank ({formatDateTime(account.last_bank_payout_failure_at)}): {account.last_bank_payout_failure} The money stays
              in your Stripe balance; update your bank details on Stripe.
            </p>
          ) : null}
          <div className="flex flex-wrap items-end gap-3">
            <button
              type="button"
              className={primaryButton}
              disabled={!ready || belowMinimum || busy !== null || Boolean(sending)}
              onClick={() =>
                run('withdraw', async () => {
                  const result = await withdrawNow();
                  const payouts = result.payouts ?? [result];
                  const paid = payouts.filter((p) => p.status === 'paid');
                  const failed = payouts.filter((p) => p.status === 'failed');
                  if (paid.length > 0)
                    setNotice(`${paid.map((p) => formatMinor(p.amount_cents, p.currency)).join(' and ')} is on its way to your Stripe account.`);
                  if (failed.length > 0)
                    setError(
                      failed
                        .map(
                          (p) =>
                            `Stripe refused the payout${payouts.length > 1 ? ` of ${formatMinor(p.amount_cents, p.currency)}` : ''}: ${p.failure_reason ?? 'no reason given'}`,
                        )
                        .join(' '),
                    );
                })
              }
            >
              {busy === 'withdraw' ? 'Sending…' : `Withdraw ${withdrawLabel} now`}
            </button>
            <label className="text-sm text-gray-700">
              Automatic payouts
              <select
                className={inputField}
                value={account.schedule}
                disabled={busy !== null}
                onChange={(e) => run('schedule', async () => show(await setPayoutSchedule(e.target.value as PayoutSchedule)))}
              >
                <option value="weekly">Weekly</option>
                <option value="daily">Daily</option>
                <option value="manual">Off (Withdraw now only)</option>
              </select>
            </label>
            <button
              type="button"
              className={secondaryButton}
              disabled={busy !== null}
              onClick={() => {
                if (window.confirm('Disconnect your Stripe account? No more payouts go to it.'))
                  void run('disconnect', async () => show(await disconnectAccount()));
              }}
            >
              Disconnect
            </button>
          </div>
          {ready && belowMinimum && !sending ? (
            <p className="text-sm text-gray-500">
              Withdrawals start at {minimums} available
              {balances.some((b) => b.pending_cents > 0)
                ? `; ${balances
                    .filter((b) => b.pending_cents > 0)
                    .map((b) => formatMinor(b.pending_cents, b.currency))
                    .join(' and ')} is still held`
                : ''}
              .
            </p>
          ) : null}
          {sending ? (
            <p role="status" className="text-sm text-yellow-800">
              {formatMinor(sending.amount_cents, sending.currency)} is on its way{sending.failure_reason ? `: ${sending.failure_reason}` : '.'}
            </p>
          ) : null}
        </div>
      )}
      {error ? <ErrorLine margin="mt-3">{error}</ErrorLine> : null}
      {notice ? <p className="mt-3 text-sm text-green-700">{notice}</p> : null}

      {data.payouts.length > 0 ? (
        <table className="mt-6 w-full text-left text-sm">
          <thead className="text-gray-500">
            <tr>
              <th className="py-2">Date</th>
              <th>Status</th>
              <th>Stripe transfer</th>
              <th>Details</th>
              <th className="text-right">Amount</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-gray-200" data-testid="payouts">
            {data.payouts.map((p) => (
              <tr key={p.id}>
                <td className="py-2 text-gray-600">{formatDateTime(p.created_at)}</td>
                <td>
                  <Badge tone={payoutTone(p.status)}>{payoutLabel[p.status]}</Badge>
                  {p.origin === 'schedule' ? <span className="ml-2 text-xs text-gray-500">scheduled</span> : null}
                </td>
                <td className="font-mono text-xs">{p.stripe_transfer_id ?? '—'}</td>
                <td className="text-gray-600">{p.failure_reason ?? ''}</td>
                <td className="text-right font-mono">
                  {formatMinor(p.amount_cents, p.currency)}
                  {p.amount_reversed_cents > 0 && p.status !== 'reversed' ? (
                    <span className="block text-xs text-red-700">−{formatMinor(p.amount_reversed_cents, p.currency)} reversed</span>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
