// The SQL of payouts: creators' connected Stripe accounts, their payouts, and their earnings by
// state as the ledger has them. Each statement takes the database or the caller's transaction
// explicitly; the rules are in service.ts, ledger.ts and connect-accounts.ts.
import type { Payout, PayoutSchedule } from '@tollbooth/contract';
import { firstRow, type Queryable } from '../../db/client.ts';

export interface ConnectRow {
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

export interface PayoutRow {
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

// ---- connected accounts ----

/** The creator's connected account (with `lock`, locked for a payout), or null. */
export function selectConnectAccount(q: Queryable, userId: string, lock = false): Promise<ConnectRow | null> {
  return firstRow<ConnectRow>(q, `SELECT * FROM connect_accounts WHERE user_id = $1${lock ? ' FOR UPDATE' : ''}`, [userId]);
}

/** A connected account made (or made again after a disconnect): its state starts from nothing. */
export async function upsertConnectAccount(db: Queryable, userId: string, stripeAccountId: string): Promise<void> {
  await db.query(
    `INSERT INTO connect_accounts (user_id, stripe_account_id) VALUES ($1, $2)
     ON CONFLICT (user_id) DO UPDATE SET stripe_account_id = EXCLUDED.stripe_account_id, disconnected_at = NULL, state_at = 0,
       details_submitted = false, charges_enabled = false, payouts_enabled = false, transfers_active = false, requirements_due = '[]',
       disabled_reason = NULL, last_bank_payout_failure = NULL, last_bank_payout_failure_at = NULL, updated_at = now()
     WHERE connect_accounts.disconnected_at IS NOT NULL`,
    [userId, stripeAccountId],
  );
}

/** A connected account's state from Stripe, unless a newer one (`at`, seconds) was applied; false then, or when the account is not ours. */
export async function updateConnectAccountState(
  db: Queryable,
  state: {
    id: string;
    detailsSubmitted: boolean;
    chargesEnabled: boolean;
    payoutsEnabled: boolean;
    transfersActive: boolean;
    requirementsDue: string[];
    disabledReason: string | null;
  },
  at: number,
): Promise<boolean> {
  const { rows } = await db.query(
    `UPDATE connect_accounts SET details_submitted = $2, charges_enabled = $3, payouts_enabled = $4, transfers_active = $5,
       requirements_due = $6, disabled_reason = $7, state_at = $8, updated_at = now()
     WHERE stripe_account_id = $1 AND state_at <= $8 RETURNING user_id`,
    [
      state.id,
      state.detailsSubmitted,
      state.chargesEnabled,
      state.payoutsEnabled,
      state.transfersActive,
      JSON.stringify(state.requirementsDue),
      state.disabledReason,
      at,
    ],
  );
  return rows.length > 0;
}

/** Why the connected account's last payout to its bank failed, and when (seconds). */
/** Records the account's bank payout failure; the creator whose account it is, or null for an account not ours. */
export async function updateBankPayoutFailure(tx: Queryable, stripeAccountId: string, reason: string, at: number): Promise<string | null> {
  const { rows } = await tx.query<{ user_id: string }>(
    `UPDATE connect_accounts SET last_bank_payout_failure = $2, last_bank_payout_failure_at = to_timestamp($3), updated_at = now()
     WHERE stripe_account_id = $1 RETURNING user_id`,
    [stripeAccountId, reason, at],
  );
  return rows[0]?.user_id ?? null;
}

/** Stops payouts to the creator's connected account; false when none is connected. */
export async function disconnectAccount(db: Queryable, userId: string): Promise<boolean> {
  const { rows } = await db.query(
    'UPDATE connect_accounts SET disconnected_at = now(), updated_at = now() WHERE user_id = $1 AND disconnected_at IS NULL RETURNING user_id',
    [userId],
  );
  return rows.length > 0;
}

/** The connected account's payout schedule; false when none is connected. */
export async function updatePayoutSchedule(db: Queryable, userId: string, schedule: PayoutSchedule): Promise<boolean> {
  const { rows } = await db.query(
    'UPDATE connect_accounts SET schedule = $2, updated_at = now() WHERE user_id = $1 AND disconnected_at IS NULL RETURNING user_id',
    [userId, schedule],
  );
  return rows.length > 0;
}

/** The creators whose schedule is due: connected, able to receive transfers, and paid (or sending) nothing within their period. */
export async function selectCreatorsDue(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ user_id: string }>(
    `SELECT c.user_id FROM connect_accounts c
     WHERE c.disconnected_at IS NULL AND c.transfers_active AND c.schedule <> 'manual'
       AND NOT EXISTS (SELECT 1 FROM payouts p WHERE p.user_id = c.user_id AND p.status <> 'failed'
         AND p.created_at > now() - CASE c.schedule WHEN 'daily' THEN interval '1 day' ELSE interval '7 days' END)
     LIMIT 500`,
  );
  return rows.map((row) => row.user_id);
}

/** What Stripe is told of a new connected account. */
export async function selectUserEmail(db: Queryable, userId: string): Promise<string | null> {
  const { rows } = await db.query<{ email: string }>('SELECT email FROM users WHERE id = $1', [userId]);
  return rows[0]?.email ?? null;
}

// ---- payouts ----

export function selectPayout(q: Queryable, id: string): Promise<PayoutRow | null> {
  return firstRow<PayoutRow>(q, 'SELECT * FROM payouts WHERE id = $1', [id]);
}

export function lockPayout(tx: Queryable, id: string): Promise<PayoutRow | null> {
  return firstRow<PayoutRow>(tx, 'SELECT * FROM payouts WHERE id = $1 FOR UPDATE', [id]);
}

/** The payout, locked, while it is sending (null once Stripe's answer moved it on). */
export function lockSendingPayout(tx: Queryable, id: string): Promise<PayoutRow | null> {
  return firstRow<PayoutRow>(tx, "SELECT * FROM payouts WHERE id = $1 AND status = 'sending' FOR UPDATE", [id]);
}

export function lockPayoutOfTransfer(tx: Queryable, transferId: string): Promise<PayoutRow | null> {
  return firstRow<PayoutRow>(tx, 'SELECT * FROM payouts WHERE stripe_transfer_id = $1 FOR UPDATE', [transferId]);
}

/** The creator's last 20 payouts, newest first. */
export async function selectRecentPayouts(db: Queryable, userId: string): Promise<PayoutRow[]> {
  const { rows } = await db.query<PayoutRow>('SELECT * FROM payouts WHERE user_id = $1 ORDER BY created_at DESC LIMIT 20', [userId]);
  return rows;
}

/** The creator's payouts still sending (at most one per currency). */
export async function selectSendingPayouts(tx: Queryable, userId: string): Promise<{ id: string; currency: string }[]> {
  const { rows } = await tx.query<{ id: string; currency: string }>("SELECT id, currency FROM payouts WHERE user_id = $1 AND status = 'sending'", [userId]);
  return rows;
}

/** Payouts sending without an answer for `seconds`, oldest first. */
export async function selectStalePayouts(db: Queryable, seconds: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    "SELECT id FROM payouts WHERE status = 'sending' AND updated_at < now() - make_interval(secs => $1) ORDER BY created_at LIMIT 100",
    [seconds],
  );
  return rows.map((row) => row.id);
}

export async function insertSendingPayout(
  tx: Queryable,
  payout: { id: string; userId: string; stripeAccountId: string; amountMinor: number; currency: string; origin: Payout['origin'] },
): Promise<void> {
  await tx.query("INSERT INTO payouts (id, user_id, stripe_account_id, amount_cents, currency, status, origin) VALUES ($1, $2, $3, $4, $5, 'sending', $6)", [
    payout.id,
    payout.userId,
    payout.stripeAccountId,
    payout.amountMinor,
    payout.currency,
    payout.origin,
  ]);
}

/** One more attempt at a sending payout's transfer; the payout, or null when it is no longer sending. */
export async function countPayoutAttempt(db: Queryable, id: string): Promise<PayoutRow | null> {
  const { rows } = await db.query<PayoutRow>(
    "UPDATE payouts SET attempts = attempts + 1, updated_at = now() WHERE id = $1 AND status = 'sending' RETURNING *",
    [id],
  );
  return rows[0] ?? null;
}

/** Why a payout is still sending (Stripe has not answered). */
export async function notePayoutUnanswered(db: Queryable, id: string, reason: string): Promise<void> {
  await db.query("UPDATE payouts SET failure_reason = $2 WHERE id = $1 AND status = 'sending'", [id, reason]);
}

export async function markPayoutPaid(tx: Queryable, id: string, transferId: string): Promise<void> {
  await tx.query("UPDATE payouts SET status = 'paid', stripe_transfer_id = $2, failure_reason = NULL, updated_at = now() WHERE id = $1", [id, transferId]);
}

export async function markPayoutFailed(tx: Queryable, id: string, reason: string): Promise<void> {
  await tx.query("UPDATE payouts SET status = 'failed', failure_reason = $2, updated_at = now() WHERE id = $1", [id, reason]);
}

/** What Stripe reversed of the payout's transfer so far; all of it makes the payout reversed. */
export async function updatePayoutReversed(tx: Queryable, id: string, reversal: { amountReversed: number; full: boolean; reason: string }): Promise<void> {
  await tx.query(
    `UPDATE payouts SET amount_reversed_cents = $2, status = CASE WHEN $3 THEN 'reversed' ELSE status END,
       failure_reason = $4, updated_at = now() WHERE id = $1`,
    [id, reversal.amountReversed, reversal.full, reversal.reason],
  );
}

// ---- earnings ----

export interface EarningsRow {
  balance: string | null;
  held: string | null;
  recent: string | null;
  in_transit: string | null;
  paid_out: string | null;
}

/**
 * The creator's earnings in one currency: the balance, what is held (model-cost reservations), what
 * came in within the last `holdDays` (not what came back from a failed or reversed payout), what is
 * in transit, and what was paid out.
 */
export async function selectEarnings(q: Queryable, userId: string, currency: string, holdDays: number): Promise<EarningsRow> {
  const { rows } = await q.query<EarningsRow>(
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
  return rows[0]!;
}

/** The currencies the creator has earnings accounts or payouts in (unordered). */
export async function selectEarningsCurrencies(q: Queryable, userId: string): Promise<string[]> {
  const { rows } = await q.query<{ currency: string }>(
    `SELECT currency FROM ledger_accounts WHERE user_id = $1 AND kind IN ('creator_earnings', 'payouts_in_transit')
     UNION SELECT currency FROM payouts WHERE user_id = $1`,
    [userId],
  );
  return rows.map((row) => row.currency);
}

/**
 * Locks the creator's earnings rows: a model-cost reservation (paid-call/holds.ts reserveEarnings)
 * waits for the payout and then sees the lower balance, so held earnings are never paid out.
 */
export async function lockEarningsAccounts(tx: Queryable, userId: string): Promise<void> {
  await tx.query("SELECT 1 FROM ledger_accounts WHERE kind = 'creator_earnings' AND user_id = $1 ORDER BY id FOR UPDATE", [userId]);
}
