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
// whatever happened, there is one transfer and the ledger says where the money is.
import { randomUUID } from 'node:crypto';
import {
  type ConnectAccount,
  currencyDecimals,
  type EarningsBalance,
  type Payout,
  type PayoutSchedule,
  type PayoutsOverview,
  type WithdrawResult,
} from '@tollbooth/contract';
import type { Config } from '../config.ts';
import type { Database, Queryable } from '../db/client.ts';
import { AppError } from '../errors.ts';
import type { StripeClient } from '../providers/stripe/client.ts';
import { findOrCreateUserAccount, findSystemAccount, postLedgerTransaction } from './ledger.ts';

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

interface ConnectRow {
  user_id: string;
  stripe_account_id: string;
  details_submitted: boolean;
  payouts_enabled: boolean;
  transfers_active: boolean;
  requirements_due: string[];
  disabled_reason: string | null;
  schedule: PayoutSchedule;
  last_bank_payout_failure: string | null;
  last_bank_payout_failure_at: Date | null;
  disconnected_at: Date | null;
}

interface PayoutRow {
  id: string;
  user_id: string;
  stripe_account_id: string;
  amount_cents: string | number;
  currency: string;
  status: Payout['status'];
  origin: Payout['origin'];
  stripe_transfer_id: string | null;
  amount_reversed_cents: string | number;
  failure_reason: string | null;
  attempts: number;
  created_at: Date;
}

/** What the SDK gives back for a connected account (the fields we read). */
export interface StripeAccountState {
  id: string;
  details_submitted?: boolean;
  charges_enabled?: boolean;
  payouts_enabled?: boolean;
  capabilities?: { transfers?: string } | null;
  requirements?: { currently_due?: string[] | null; disabled_reason?: string | null } | null;
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

/** Applies a connected account's state from Stripe, unless a newer one was applied (`at`: event created, seconds). */
export async function applyConnectAccount(db: Queryable, account: StripeAccountState, at: number): Promise<boolean> {
  const { rows } = await db.query(
    `UPDATE connect_accounts SET details_submitted = $2, charges_enabled = $3, payouts_enabled = $4, transfers_active = $5,
       requirements_due = $6, disabled_reason = $7, state_at = $8, updated_at = now()
     WHERE stripe_account_id = $1 AND state_at <= $8 RETURNING user_id`,
    [
      account.id,
      Boolean(account.details_submitted),
      Boolean(account.charges_enabled),
      Boolean(account.payouts_enabled),
      account.capabilities?.transfers === 'active',
      JSON.stringify(account.requirements?.currently_due ?? []),
      account.requirements?.disabled_reason ?? null,
      at,
    ],
  );
  return rows.length > 0;
}

/**
 * A transfer Stripe confirmed (its answer, a retry's, or transfer.created): the payout is paid and
 * its money leaves payouts in transit for the platform's creator payouts. Once, by reference.
 */
export async function confirmPayout(tx: Queryable, payoutId: string, transfer: { id: string; amount: number; destination: unknown }): Promise<boolean> {
  const { rows } = await tx.query<PayoutRow>("SELECT * FROM payouts WHERE id = $1 AND status = 'sending' FOR UPDATE", [payoutId]);
  const payout = rows[0];
  if (!payout) return false;
  if (Number(payout.amount_cents) !== transfer.amount)
    throw new Error(`payout ${payoutId}: transfer ${transfer.id} of ${transfer.amount}, expected ${payout.amount_cents}`);
  await tx.query("UPDATE payouts SET status = 'paid', stripe_transfer_id = $2, failure_reason = NULL, updated_at = now() WHERE id = $1", [
    payoutId,
    transfer.id,
  ]);
  await postLedgerTransaction(tx, {
    kind: 'payout_sent',
    reference: `payout-sent:${payoutId}`,
    description: `Stripe transfer ${transfer.id} to ${String(transfer.destination)}`,
    entries: [
      { accountId: await findOrCreateUserAccount(tx, 'payouts_in_transit', payout.user_id, payout.currency), amountCents: -Number(payout.amount_cents) },
      { accountId: await findSystemAccount(tx, 'creator_payouts', payout.currency), amountCents: Number(payout.amount_cents) },
    ],
  });
  return true;
}

/** Stripe refused the transfer: the money goes back to the creator's earnings, with Stripe's reason. */
async function failPayout(tx: Queryable, payoutId: string, reason: string): Promise<boolean> {
  const { rows } = await tx.query<PayoutRow>("SELECT * FROM payouts WHERE id = $1 AND status = 'sending' FOR UPDATE", [payoutId]);
  const payout = rows[0];
  if (!payout) return false;
  await tx.query("UPDATE payouts SET status = 'failed', failure_reason = $2, updated_at = now() WHERE id = $1", [payoutId, reason]);
  await postLedgerTransaction(tx, {
    kind: 'payout_failed',
    reference: `payout-failed:${payoutId}`,
    description: `Payout refused by Stripe: ${reason}`,
    entries: [
      { accountId: await findOrCreateUserAccount(tx, 'payouts_in_transit', payout.user_id, payout.currency), amountCents: -Number(payout.amount_cents) },
      { accountId: await findOrCreateUserAccount(tx, 'creator_earnings', payout.user_id, payout.currency), amountCents: Number(payout.amount_cents) },
    ],
  });
  return true;
}

/**
 * transfer.reversed (all or part): what was reversed comes back from the platform's creator payouts
 * to the creator's earnings. Stripe reports the cumulative amount_reversed, so only the growth is
 * posted, whatever the order or number of deliveries.
 */
export async function applyTransferReversal(tx: Queryable, transfer: { id: string; amount_reversed: number; metadata?: Record<string, string> | null }) {
  const { rows } = await tx.query<PayoutRow>('SELECT * FROM payouts WHERE stripe_transfer_id = $1 FOR UPDATE', [transfer.id]);
  let payout = rows[0];
  if (!payout && transfer.metadata?.tollbooth_payout_id) {
    // Reversed before we heard of the transfer itself: it is still ours (its metadata says which payout).
    const byId = await tx.query<PayoutRow>('SELECT * FROM payouts WHERE id = $1 FOR UPDATE', [transfer.metadata.tollbooth_payout_id]);
    payout = byId.rows[0];
    if (payout?.status === 'sending') {
      await confirmPayout(tx, payout.id, { id: transfer.id, amount: Number(payout.amount_cents), destination: payout.stripe_account_id });
      payout = (await tx.query<PayoutRow>('SELECT * FROM payouts WHERE id = $1', [payout.id])).rows[0];
    }
  }
  if (!payout || payout.stripe_transfer_id !== transfer.id) return false;
  const delta = transfer.amount_reversed - Number(payout.amount_reversed_cents);
  if (delta <= 0) return false;
  const full = transfer.amount_reversed >= Number(payout.amount_cents);
  await tx.query(
    `UPDATE payouts SET amount_reversed_cents = $2, status = CASE WHEN $3 THEN 'reversed' ELSE status END,
       failure_reason = $4, updated_at = now() WHERE id = $1`,
    [
      payout.id,
      transfer.amount_reversed,
      full,
      `Reversed by Stripe (${formatMinor(transfer.amount_reversed, payout.currency)}); the money is back in your earnings`,
    ],
  );
  await postLedgerTransaction(tx, {
    kind: 'payout_reversed',
    reference: `payout-reversed:${transfer.id}:${transfer.amount_reversed}`,
    description: `Stripe transfer ${transfer.id} reversed`,
    entries: [
      { accountId: await findSystemAccount(tx, 'creator_payouts', payout.currency), amountCents: -delta },
      { accountId: await findOrCreateUserAccount(tx, 'creator_earnings', payout.user_id, payout.currency), amountCents: delta },
    ],
  });
  return true;
}

/** payout.failed of a connected account: the money is in that account's Stripe balance; the page says why. */
export async function applyBankPayoutFailure(
  tx: Queryable,
  accountId: string,
  payout: { failure_message?: string | null; failure_code?: string | null },
  at: number,
) {
  const reason = payout.failure_message || payout.failure_code || 'Stripe could not pay out to your bank account';
  await tx.query(
    `UPDATE connect_accounts SET last_bank_payout_failure = $2, last_bank_payout_failure_at = to_timestamp($3), updated_at = now() WHERE stripe_account_id = $1`,
    [accountId, reason, at],
  );
}

/** An amount in its currency's own unit: "25.00 USD", "1500 JPY" (zero-decimal currencies have no cents). */
const formatMinor = (amount: number, currency: string) =>
  `${currencyDecimals(currency) === 0 ? String(amount) : (amount / 100).toFixed(2)} ${currency.toUpperCase()}`;

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

  const readAccount = async (q: Queryable, userId: string, lock = false) => {
    const { rows } = await q.query<ConnectRow>(`SELECT * FROM connect_accounts WHERE user_id = $1${lock ? ' FOR UPDATE' : ''}`, [userId]);
    return rows[0] ?? null;
  };

  /**
   * The creator's earnings by state, from the ledger: pending is what the earnings account received
   * within the hold (money given back from a failed or reversed payout is available at once),
   * available the rest of its balance, less what is held for the model cost of calls in flight
   * (decision 0037: held earnings are never paid out).
   */
  const readBalance = async (q: Queryable, userId: string, currency: string): Promise<EarningsBalance> => {
    const { rows } = await q.query<{ balance: string | null; held: string | null; recent: string | null; in_transit: string | null; paid_out: string | null }>(
      `SELECT
         (SELECT balance_cents FROM ledger_accounts WHERE kind = 'creator_earnings' AND user_id = $1 AND currency = $3) AS balance,
         (SELECT held_cents FROM ledger_accounts WHERE kind = 'creator_earnings' AND user_id = $1 AND currency = $3) AS held,
         (SELECT sum(e.amount_cents) FROM ledger_accounts a JOIN ledger_entries e ON e.account_id = a.id JOIN ledger_transactions t ON t.id = e.transaction_id
           WHERE a.kind = 'creator_earnings' AND a.user_id = $1 AND a.currency = $3 AND e.amount_cents > 0 AND e.created_at > now() - make_interval(days => $2::int)
             AND t.kind NOT IN ('payout_failed', 'payout_reversed')) AS recent,
         (SELECT balance_cents FROM ledger_accounts WHERE kind = 'payouts_in_transit' AND user_id = $1 AND currency = $3) AS in_transit,
         (SELECT sum(amount_cents - amount_reversed_cents) FROM payouts WHERE user_id = $1 AND currency = $3 AND status IN ('paid', 'reversed')) AS paid_out`,
      [userId, holdDays, currency],
    );
    const row = rows[0]!;
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
    const { rows } = await q.query<{ currency: string }>(
      `SELECT currency FROM ledger_accounts WHERE user_id = $1 AND kind IN ('creator_earnings', 'payouts_in_transit')
       UNION SELECT currency FROM payouts WHERE user_id = $1`,
      [userId],
    );
    return [
      'usd',
      ...rows
        .map((row) => row.currency)
        .filter((currency) => currency !== 'usd')
        .sort(),
    ];
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
    const { rows } = await db.query<PayoutRow>(
      "UPDATE payouts SET attempts = attempts + 1, updated_at = now() WHERE id = $1 AND status = 'sending' RETURNING *",
      [payoutId],
    );
    const payout = rows[0];
    if (!payout) return;
    try {
      if (payout.attempts > 1) {
        // A retry: if an earlier attempt reached Stripe, its transfer is in this group (keys expire after 24 h; groups do not).
        const found = await client.transfers.list({ transfer_group: `payout_${payout.id}`, limit: 1 });
        const existing = found.data[0];
        if (existing) {
          await db.transaction((tx) => confirmPayout(tx, payout.id, existing));
          return;
        }
      }
      const transfer = await client.transfers.create(
        {
          amount: Number(payout.amount_cents),
          currency: payout.currency,
          destination: payout.stripe_account_id,
          transfer_group: `payout_${payout.id}`,
          description: 'Tollbooth earnings',
          metadata: { tollbooth_payout_id: payout.id, tollbooth_user_id: payout.user_id },
        },
        // The currency is in the key: one payout is one transfer in one currency.
        { idempotencyKey: `payout:${payout.id}:${payout.currency}` },
      );
      await db.transaction((tx) => confirmPayout(tx, payout.id, transfer));
    } catch (error) {
      if (isRefusal(error)) {
        await db.transaction((tx) => failPayout(tx, payout.id, (error as Error).message));
        return;
      }
      // No answer: the payout stays sending, and says so; the sweeper asks again.
      await db.query("UPDATE payouts SET failure_reason = $2 WHERE id = $1 AND status = 'sending'", [
        payout.id,
        `Stripe has not answered yet (${(error as Error).message}); it will be asked again`,
      ]);
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
      const account = await readAccount(tx, userId, true);
      if (!account || account.disconnected_at) throw new AppError('conflict', 'Connect a Stripe account first');
      if (!account.transfers_active) throw new AppError('conflict', 'Your Stripe account cannot receive transfers yet; finish the onboarding Stripe asks for');
      const sending = await tx.query<{ id: string; currency: string }>("SELECT id, currency FROM payouts WHERE user_id = $1 AND status = 'sending'", [userId]);
      const started: { id: string; fresh: boolean }[] = sending.rows.map((row) => ({ id: row.id, fresh: false }));
      // The earnings rows' locks: a model-cost reservation (billing/paid-call/holds.ts reserveEarnings) waits
      // for this payout and then sees the lower balance, so held earnings are never paid out.
      await tx.query("SELECT 1 FROM ledger_accounts WHERE kind = 'creator_earnings' AND user_id = $1 ORDER BY id FOR UPDATE", [userId]);
      const below: string[] = [];
      for (const balance of await readBalances(tx, userId)) {
        const { currency, available_cents } = balance;
        if (sending.rows.some((row) => row.currency === currency)) continue;
        if (available_cents < balance.minimum_cents) {
          if (available_cents > 0 || currency === 'usd')
            below.push(`${formatMinor(available_cents, currency)} of ${formatMinor(balance.minimum_cents, currency)}`);
          continue;
        }
        const id = randomUUID();
        await tx.query(
          "INSERT INTO payouts (id, user_id, stripe_account_id, amount_cents, currency, status, origin) VALUES ($1, $2, $3, $4, $5, 'sending', $6)",
          [id, userId, account.stripe_account_id, available_cents, currency, origin],
        );
        await postLedgerTransaction(tx, {
          kind: 'payout',
          reference: `payout:${id}`,
          description: `Payout to Stripe account ${account.stripe_account_id}`,
          entries: [
            { accountId: await findOrCreateUserAccount(tx, 'creator_earnings', userId, currency), amountCents: -available_cents },
            { accountId: await findOrCreateUserAccount(tx, 'payouts_in_transit', userId, currency), amountCents: available_cents },
          ],
        });
        started.push({ id, fresh: true });
      }
      if (started.length === 0 && origin !== 'schedule') {
        throw new AppError('conflict', `Available earnings are below the payout minimum (available ${below.join('; ')})`);
      }
      return started;
    });

  const readPayout = async (id: string) => toPayout((await db.query<PayoutRow>('SELECT * FROM payouts WHERE id = $1', [id])).rows[0]!);

  const overview = async (userId: string): Promise<PayoutsOverview> => {
    const account = await readAccount(db, userId);
    const payouts = await db.query<PayoutRow>('SELECT * FROM payouts WHERE user_id = $1 ORDER BY created_at DESC LIMIT 20', [userId]);
    return {
      stripe_configured: stripe !== null,
      account: account && !account.disconnected_at ? toAccount(account) : null,
      balances: await readBalances(db, userId),
      hold_days: holdDays,
      minimum_cents: minimumCents,
      payouts: payouts.rows.map(toPayout),
    };
  };

  return {
    overview,
    readBalances: (userId: string) => readBalances(db, userId),
    readBalance: (userId: string, currency = 'usd') => readBalance(db, userId, currency),

    /** A single-use Stripe onboarding link; makes the connected account on first use. */
    async connect(userId: string): Promise<{ url: string }> {
      const client = requireStripe();
      let account = await readAccount(db, userId);
      if (!account || account.disconnected_at) {
        const user = await db.query<{ email: string }>('SELECT email FROM users WHERE id = $1', [userId]);
        const generation = account ? `:${account.disconnected_at!.getTime()}` : '';
        const created = await client.accounts.create(
          {
            controller: {
              stripe_dashboard: { type: 'express' },
              fees: { payer: 'application' },
              losses: { payments: 'application' },
            },
            email: user.rows[0]?.email || undefined,
            capabilities: { transfers: { requested: true } },
            metadata: { tollbooth_user_id: userId },
          },
          { idempotencyKey: `connect:${userId}${generation}` },
        );
        await db.query(
          `INSERT INTO connect_accounts (user_id, stripe_account_id) VALUES ($1, $2)
           ON CONFLICT (user_id) DO UPDATE SET stripe_account_id = EXCLUDED.stripe_account_id, disconnected_at = NULL, state_at = 0,
             details_submitted = false, charges_enabled = false, payouts_enabled = false, transfers_active = false, requirements_due = '[]',
             disabled_reason = NULL, last_bank_payout_failure = NULL, last_bank_payout_failure_at = NULL, updated_at = now()
           WHERE connect_accounts.disconnected_at IS NOT NULL`,
          [userId, created.id],
        );
        await applyConnectAccount(db, created, 0);
        account = await readAccount(db, userId);
      }
      const page = `${config.publicUrl}/money`;
      const link = await client.accountLinks.create({
        account: account!.stripe_account_id,
        refresh_url: `${page}?connect=refresh`,
        return_url: `${page}?connect=return`,
        type: 'account_onboarding',
      });
      return { url: link.url };
    },

    /** The creator came back from Stripe: the return URL does not mean finished, so ask Stripe. */
    async refreshAccount(userId: string): Promise<PayoutsOverview> {
      const account = await readAccount(db, userId);
      if (account && !account.disconnected_at) {
        const state = await requireStripe().accounts.retrieve(account.stripe_account_id);
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
      const { rows } = await db.query(
        'UPDATE connect_accounts SET disconnected_at = now(), updated_at = now() WHERE user_id = $1 AND disconnected_at IS NULL RETURNING user_id',
        [userId],
      );
      if (!rows[0]) throw new AppError('not_found', 'No Stripe account is connected');
      return overview(userId);
    },

    async setSchedule(userId: string, schedule: PayoutSchedule): Promise<PayoutsOverview> {
      const { rows } = await db.query(
        'UPDATE connect_accounts SET schedule = $2, updated_at = now() WHERE user_id = $1 AND disconnected_at IS NULL RETURNING user_id',
        [userId, schedule],
      );
      if (!rows[0]) throw new AppError('not_found', 'No Stripe account is connected');
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
      const stale = await db.query<{ id: string }>(
        "SELECT id FROM payouts WHERE status = 'sending' AND updated_at < now() - make_interval(secs => $1) ORDER BY created_at LIMIT 100",
        // A sending payout without an answer for a claim's lifetime (CLAIM_LIFETIME_SECONDS) has lost its process or its answer.
        [config.claimLifetimeSeconds],
      );
      for (const { id } of stale.rows) {
        await send(id).catch(() => undefined);
        retried++;
      }
      const due = await db.query<{ user_id: string }>(
        `SELECT c.user_id FROM connect_accounts c
         WHERE c.disconnected_at IS NULL AND c.transfers_active AND c.schedule <> 'manual'
           AND NOT EXISTS (SELECT 1 FROM payouts p WHERE p.user_id = c.user_id AND p.status <> 'failed'
             AND p.created_at > now() - CASE c.schedule WHEN 'daily' THEN interval '1 day' ELSE interval '7 days' END)
         LIMIT 500`,
      );
      for (const { user_id } of due.rows) {
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
