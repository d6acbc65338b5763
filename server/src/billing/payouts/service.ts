// Creators get paid (issue 23, decision 0031): a Stripe Connect account per creator (Stripe-hosted
// onboarding through an Account Link), and their available earnings sent to it as Stripe Transfers
// (separate charges and transfers), on demand ("Withdraw now") and on a schedule.
//
// A payout is written before Stripe is asked: one database transaction makes the payouts row
// (status 'sending') and the ledger transaction earnings → payouts in transit, under a lock on the
// creator's connect account and a unique index that allows one sending payout per creator. Only
// then is the transfer requested, with the payout's id as Idempotency-Key and transfer_group. Its
// answer moves the money on (in transit → creator payouts) or back (in transit → earnings, with
// Stripe's reason). No answer (timeout, 5xx, the process killed) leaves the payout sending: any
// process retries it later with the same key, after asking Stripe for a transfer of that group, so
// whatever happened, there is one transfer and the ledger says where the money is (ledger.ts;
// the SQL is in queries.ts, Stripe's requests in providers/stripe/).

import { randomUUID } from 'node:crypto';
import type { ConnectAccount, EarningsBalance, Payout, PayoutSchedule, PayoutsOverview, WithdrawResult } from '@tollbooth/contract';
import { formatMinorWithCode } from '@tollbooth/contract';
import type { Database, Queryable } from '../../db/client.ts';
import type { Config } from '../../platform/config.ts';
import { AppError } from '../../platform/errors.ts';
import type { StripeClient } from '../../providers/stripe/client.ts';
import { createConnectedAccount } from '../../providers/stripe/create-connected-account.ts';
import { createOnboardingLink } from '../../providers/stripe/create-onboarding-link.ts';
import { createPayoutTransfer } from '../../providers/stripe/create-transfer.ts';
import { findPayoutTransfer } from '../../providers/stripe/find-transfer.ts';
import { readConnectedAccount } from '../../providers/stripe/read-connected-account.ts';
import { applyConnectAccount, type StripeAccountState } from './connect-accounts.ts';
import { confirmPayout, failPayout, openPayout } from './ledger.ts';
import {
  type ConnectRow,
  countPayoutAttempt,
  disconnectAccount,
  lockEarningsAccounts,
  notePayoutUnanswered,
  type PayoutRow,
  selectConnectAccount,
  selectCreatorsDue,
  selectEarnings,
  selectEarningsCurrencies,
  selectPayout,
  selectRecentPayouts,
  selectSendingPayouts,
  selectStalePayouts,
  selectUserEmail,
  updatePayoutSchedule,
  upsertConnectAccount,
} from './queries.ts';

/**
 * Earnings are kept and paid per currency (decision 0035): a payout is one transfer in one
 * currency. The smallest transfer: PAYOUT_MINIMUM_CENTS for US dollars; PAYOUT_MINIMUMS for
 * others, else about ten dollars' worth for the common zero-decimal currencies (there are no
 * exchange rates here, so these are fixed), else 1000 minor units (10.00 of a two-decimal currency).
 */
const ZERO_DECIMAL_MINIMUMS: Record<string, number> = { jpy: 1500, krw: 15000, vnd: 250000, clp: 10000 };
export function payoutMinimum(config: Pick<Config['payouts'], 'minimumCents' | 'minimums'>, currency: string): number {
  if (currency === 'usd') return config.minimumCents;
  return config.minimums[currency] ?? ZERO_DECIMAL_MINIMUMS[currency] ?? 1000;
}

const toAccount = (row: ConnectRow): ConnectAccount => ({
  stripe_account_id: row.stripe_account_id,
  details_submitted: row.details_submitted,
  payouts_enabled: row.payouts_enabled,
  transfers_active: row.transfers_active,
  requirements_due: row.requirements_due,
  disabled_reason: row.disabled_reason,
  schedule: row.schedule,
  last_bank_payout_failure: row.last_bank_payout_failure,
  last_bank_payout_failure_at: row.last_bank_payout_failure_at?.toISOString() ?? null,
});

const toPayout = (row: PayoutRow): Payout => ({
  id: row.id,
  amount_cents: Number(row.amount_cents),
  currency: row.currency,
  status: row.status,
  origin: row.origin,
  stripe_transfer_id: row.stripe_transfer_id,
  amount_reversed_cents: Number(row.amount_reversed_cents),
  failure_reason: row.failure_reason,
  created_at: row.created_at.toISOString(),
});

/** Stripe's definitive "no" (a 4xx other than a rate limit or an idempotency clash), as opposed to no answer. */
const isRefusal = (error: unknown) => {
  const e = error as { statusCode?: number; type?: string };
  return typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500 && e.statusCode !== 429 && e.type !== 'StripeIdempotencyError';
};

export function createPayoutsService({ db, config, stripe }: { db: Database; config: Config; stripe: StripeClient | null }) {
  const { holdDays, minimumCents } = config.payouts;
  const minimumOf = (currency: string) => payoutMinimum(config.payouts, currency);

  const requireStripe = () => {
    if (!stripe) throw new AppError('service_unavailable', 'Card payments are not configured on this server');
    return stripe;
  };

  /**
   * The creator's earnings by state, from the ledger: pending is what the earnings account received
   * within the hold (money given back from a failed or reversed payout is available at once),
   * available the rest of its balance, less what is held for the model cost of calls in flight
   * (decision 0037: held earnings are never paid out).
   */
  const readBalance = async (q: Queryable, userId: string, currency: string): Promise<EarningsBalance> => {
    const row = await selectEarnings(q, userId, currency, holdDays);
    const balance = Number(row.balance ?? 0);
    const available = Math.max(0, Math.min(balance, balance - Number(row.recent ?? 0), balance - Number(row.held ?? 0)));
    return {
      currency,
      pending_cents: balance - available,
      available_cents: available,
      in_transit_cents: Number(row.in_transit ?? 0),
      paid_out_cents: Number(row.paid_out ?? 0),
      minimum_cents: minimumOf(currency),
    };
  };

  /** The currencies the creator has earned or been paid in: US dollars always, first; then the others by code. */
  const currenciesOf = async (q: Queryable, userId: string): Promise<string[]> => {
    return ['usd', ...(await selectEarningsCurrencies(q, userId)).filter((currency) => currency !== 'usd').sort()];
  };

  /** The creator's earnings by state, one entry per currency; amounts are never added across currencies. */
  const readBalances = async (q: Queryable, userId: string): Promise<EarningsBalance[]> => {
    const balances: EarningsBalance[] = [];
    for (const currency of await currenciesOf(q, userId)) balances.push(await readBalance(q, userId, currency));
    return balances;
  };

  /** Asks Stripe for the payout's transfer (same Idempotency-Key every time) and records the answer. */
  const send = async (payoutId: string): Promise<void> => {
    const client = requireStripe();
    const payout = await countPayoutAttempt(db, payoutId);
    if (!payout) return;
    try {
      if (payout.attempts > 1) {
        // A retry: if an earlier attempt reached Stripe, its transfer is in this group (keys expire after 24 h; groups do not).
        const existing = await findPayoutTransfer(client, payout.id);
        if (existing) {
          await db.transaction((tx) => confirmPayout(tx, payout.id, existing));
          return;
        }
      }
      const transfer = await createPayoutTransfer(client, {
        id: payout.id,
        userId: payout.user_id,
        amountMinor: Number(payout.amount_cents),
        currency: payout.currency,
        destination: payout.stripe_account_id,
      });
      await db.transaction((tx) => confirmPayout(tx, payout.id, transfer));
    } catch (error) {
      if (isRefusal(error)) {
        await db.transaction((tx) => failPayout(tx, payout.id, (error as Error).message));
        return;
      }
      // No answer: the payout stays sending, and says so; the sweeper asks again.
      await notePayoutUnanswered(db, payout.id, `Stripe has not answered yet (${(error as Error).message}); it will be asked again`);
      throw new AppError('provider_error', 'Stripe did not answer; your payout is on its way and will be retried');
    }
  };

  /**
   * Takes the available earnings of each currency into a new sending payout of that currency (one
   * transaction, under the connect account's lock), or answers the payout of that currency already
   * sending. Empty when there is nothing to send in any currency.
   */
  const startPayout = async (userId: string, origin: Payout['origin']): Promise<{ id: string; fresh: boolean }[]> =>
    db.transaction(async (tx) => {
      const account = await selectConnectAccount(tx, userId, true);
      if (!account || account.disconnected_at) throw new AppError('conflict', 'Connect a Stripe account first');
      if (!account.transfers_active) throw new AppError('conflict', 'Your Stripe account cannot receive transfers yet; finish the onboarding Stripe asks for');
      const sending = await selectSendingPayouts(tx, userId);
      const started: { id: string; fresh: boolean }[] = sending.map((row) => ({ id: row.id, fresh: false }));
      // Held earnings are never paid out: a model-cost reservation waits for these locks (queries.ts).
      await lockEarningsAccounts(tx, userId);
      const below: string[] = [];
      for (const balance of await readBalances(tx, userId)) {
        const { currency, available_cents } = balance;
        if (sending.some((row) => row.currency === currency)) continue;
        if (available_cents < balance.minimum_cents) {
          if (available_cents > 0 || currency === 'usd')
            below.push(`${formatMinorWithCode(available_cents, currency)} of ${formatMinorWithCode(balance.minimum_cents, currency)}`);
          continue;
        }
        const id = randomUUID();
        await openPayout(tx, { id, userId, stripeAccountId: account.stripe_account_id, amountMinor: available_cents, currency, origin });
        started.push({ id, fresh: true });
      }
      if (started.length === 0 && origin !== 'schedule') {
        throw new AppError('conflict', `Available earnings are below the payout minimum (available ${below.join('; ')})`);
      }
      return started;
    });

  const readPayout = async (id: string) => toPayout((await selectPayout(db, id))!);

  const overview = async (userId: string): Promise<PayoutsOverview> => {
    const account = await selectConnectAccount(db, userId);
    const payouts = await selectRecentPayouts(db, userId);
    return {
      stripe_configured: stripe !== null,
      account: account && !account.disconnected_at ? toAccount(account) : null,
      balances: await readBalances(db, userId),
      hold_days: holdDays,
      minimum_cents: minimumCents,
      payouts: payouts.map(toPayout),
    };
  };

  return {
    overview,
    readBalances: (userId: string) => readBalances(db, userId),
    readBalance: (userId: string, currency = 'usd') => readBalance(db, userId, currency),

    /** A single-use Stripe onboarding link; makes the connected account on first use. */
    async connect(userId: string): Promise<{ url: string }> {
      const client = requireStripe();
      let account = await selectConnectAccount(db, userId);
      if (!account || account.disconnected_at) {
        const email = await selectUserEmail(db, userId);
        const generation = account ? `:${account.disconnected_at!.getTime()}` : '';
        const created = await createConnectedAccount(client, { userId, email: email || undefined, generation });
        await upsertConnectAccount(db, userId, created.id);
        await applyConnectAccount(db, created, 0);
        account = await selectConnectAccount(db, userId);
      }
      const link = await createOnboardingLink(client, account!.stripe_account_id, `${config.publicUrl}/money`);
      return { url: link.url };
    },

    /** The creator came back from Stripe: the return URL does not mean finished, so ask Stripe. */
    async refreshAccount(userId: string): Promise<PayoutsOverview> {
      const account = await selectConnectAccount(db, userId);
      if (account && !account.disconnected_at) {
        const state = await readConnectedAccount(requireStripe(), account.stripe_account_id);
        // A read now is at least as new as any event created before this second.
        await applyConnectAccount(db, state as StripeAccountState, Math.floor(Date.now() / 1000));
      }
      return overview(userId);
    },

    /**
     * Stops payouts to the connected account. A payout already sending goes on to that account (its
     * transfer may already exist); it ends paid or comes back to earnings, as any other.
     */
    async disconnect(userId: string): Promise<PayoutsOverview> {
      if (!(await disconnectAccount(db, userId))) throw new AppError('not_found', 'No Stripe account is connected');
      return overview(userId);
    },

    async setSchedule(userId: string, schedule: PayoutSchedule): Promise<PayoutsOverview> {
      if (!(await updatePayoutSchedule(db, userId, schedule))) throw new AppError('not_found', 'No Stripe account is connected');
      return overview(userId);
    },

    /**
     * "Withdraw now": all available earnings, one transfer per currency. A second click, another tab
     * or another process while one is sending gets that same payout back (and asks Stripe again with
     * its key). Answers the first payout (US dollars first) with all of them in `payouts`.
     */
    async withdraw(userId: string): Promise<WithdrawResult> {
      requireStripe();
      const started = await startPayout(userId, 'withdraw');
      let unanswered: unknown = null;
      for (const { id } of started) {
        await send(id).catch((error: unknown) => {
          unanswered ??= error;
        });
      }
      // Every currency was asked; Stripe's silence on any of them is the answer (the payout stays sending).
      if (unanswered) throw unanswered;
      const payouts = await Promise.all(started.map(({ id }) => readPayout(id)));
      return { ...payouts[0]!, payouts };
    },

    /**
     * The scheduler's round: payouts left sending (no answer, a crashed process) are asked for again,
     * then every connected creator whose schedule is due gets their available earnings.
     */
    async sweep(): Promise<{ retried: number; started: number }> {
      if (!stripe) return { retried: 0, started: 0 };
      let retried = 0;
      let started = 0;
      // A sending payout without an answer for a claim's lifetime (CLAIM_LIFETIME_SECONDS) has lost its process or its answer.
      for (const id of await selectStalePayouts(db, config.claimLifetimeSeconds)) {
        await send(id).catch(() => undefined);
        retried++;
      }
      for (const user_id of await selectCreatorsDue(db)) {
        const payouts = await startPayout(user_id, 'schedule').catch(() => []);
        for (const payout of payouts.filter((p) => p.fresh)) {
          started++;
          await send(payout.id).catch(() => undefined);
        }
      }
      return { retried, started };
    },
  };
}

export type PayoutsService = ReturnType<typeof createPayoutsService>;
