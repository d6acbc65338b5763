// Credit leases: a process holds a slice of a caller's credits (one hold row) and serves several
// paid calls from it in memory, so most calls need no reservation round trip and do not queue on
// the caller's account row. The hold is in PostgreSQL, so the money is never spendable twice:
//
//   hold amount in the database = what the lease has left + what its calls in flight took
//
// A settled call takes its price off the hold (settlement-sql.ts); a failed call gives its
// price back to the lease; an idle lease is released, returning what is left. A lease is only as
// large as reserveCharge allows (a slice only when the caller has plenty, else exactly one call's
// price), and it retires well before its hold would expire. When a slice is down to its last
// quarter, the next one is reserved in the background, so a steady caller's calls do not wait for
// a reservation round trip. If the process dies, the hold expires
// and the sweeper returns it, with the price of any call answered but not yet settled (at most
// SETTLEMENT_WINDOW_CALLS of them go free; service.ts, decision 0024). Holds live only
// HOLD_LIFETIME_SECONDS (90 s by default) unless renewed: this process renews every hold it still
// uses every third of that, so a live call never loses its hold and a crashed process's holds
// come back within the lifetime plus one sweep. A renewal skips the holds a statement holds locked
// (a stalled settlement), and this process's own sweeper never releases its live holds, so a
// stall longer than the lifetime does not free the calls it answered (decision 0140).
import type { Database } from '../../db/client.ts';
import { AppError } from '../../platform/errors.ts';
import { type CreditHold, HOLD_LIFETIME_SECONDS, releaseCharge, renewHolds, reserveCharge, tryReserveEarnings } from './holds.ts';

export const CALLS_PER_LEASE = 20;
const IDLE_RELEASE_MS = 1000;
/** Slices reserved ahead less than this apart grow (doubling, at most MAX_SLICE_GROWTH slices). */
const FAST_SLICE_MS = 1000;
const MAX_SLICE_GROWTH = 16;
/** A lease stops serving new calls this long after it was reserved (its hold is renewed meanwhile). */
const LEASE_MAX_AGE_MS = 10 * 60_000;

interface Lease {
  key: string;
  hold: CreditHold;
  remaining: number;
  inFlight: number;
  lastUsedAt: number;
  retireAt: number;
  retired: boolean;
}

/** One call's share of a lease. */
export interface LeasedCharge {
  hold: CreditHold;
  amountCents: number;
  lease: Lease;
}

export interface ChargeRequest {
  userId: string;
  apiKeyId: string | null;
  monthlySpendLimitCents: number | null;
  /** A publishable key's daily cap: its slices fit what is left of the day, like the month's. */
  dailySpendLimitCents?: number | null;
  priceCents: number;
  /**
   * Whose money: the user's credits (default), or a creator's US-dollar earnings, held for the
   * model cost of their apps' calls (decision 0037; no key, no caps).
   */
  source?: 'credits' | 'earnings';
}

/** Thrown by take() with `leaseOnly` when no lease could serve the call: nothing was reserved. */
export class NoLeaseError extends AppError {
  constructor() {
    super('insufficient_credits', 'No lease for this reservation');
  }
}

export function createCreditLeases(
  db: Database,
  options: { callsPerLease?: number; idleReleaseMs?: number; holdLifetimeSeconds?: number; onRenewError?: (error: unknown) => void } = {},
) {
  const callsPerLease = options.callsPerLease ?? CALLS_PER_LEASE;
  const idleReleaseMs = options.idleReleaseMs ?? IDLE_RELEASE_MS;
  const holdLifetimeSeconds = options.holdLifetimeSeconds ?? HOLD_LIFETIME_SECONDS;
  /** Every lease whose hold is not released yet, in the map or retired with calls in flight. */
  const unreleased = new Set<Lease>();
  const leases = new Map<string, Lease>();
  /** The lease reserved ahead for a caller whose current one is nearly used up. */
  const upcoming = new Map<string, Lease>();
  const acquiring = new Map<string, Promise<unknown>>();
  /** How many slices the last lease reserved ahead for a caller held, and when (reserveAhead). */
  const growth = new Map<string, { factor: number; reservedAt: number }>();
  const releasing = new Set<Promise<void>>();

  const release = (lease: Lease): Promise<void> => {
    unreleased.delete(lease);
    const done = releaseCharge(db, lease.hold)
      .catch(() => {
        // The hold stays until it expires; the sweeper then returns it.
      })
      .finally(() => releasing.delete(done));
    releasing.add(done);
    return done;
  };

  const retire = (lease: Lease) => {
    lease.retired = true;
    if (leases.get(lease.key) === lease) leases.delete(lease.key);
    if (upcoming.get(lease.key) === lease) upcoming.delete(lease.key);
    if (lease.inFlight === 0) void release(lease);
  };

  const takeFrom = (lease: Lease, priceCents: number): LeasedCharge => {
    lease.remaining -= priceCents;
    lease.inFlight++;
    lease.lastUsedAt = Date.now();
    return { hold: lease.hold, amountCents: priceCents, lease };
  };

  const usable = (lease: Lease | undefined, priceCents: number): lease is Lease =>
    lease !== undefined && !lease.retired && lease.remaining >= priceCents && Date.now() < lease.retireAt;

  const sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const lease of [...leases.values(), ...upcoming.values()]) {
        if (lease.inFlight === 0 && (now - lease.lastUsedAt >= idleReleaseMs || now >= lease.retireAt)) retire(lease);
      }
      for (const [key, last] of growth) if (now - last.reservedAt >= FAST_SLICE_MS) growth.delete(key);
    },
    Math.max(50, Math.floor(idleReleaseMs / 2)),
  );
  sweeper.unref();
  const renew = () => {
    renewHolds(
      db,
      [...unreleased].map((lease) => lease.hold.id),
      holdLifetimeSeconds,
    ).catch((error: unknown) => options.onRenewError?.(error));
  };
  const renewer = setInterval(renew, Math.max(200, (holdLifetimeSeconds * 1000) / 3));
  renewer.unref();

  const newLease = (key: string, hold: CreditHold): Lease => {
    const now = Date.now();
    // A slice of a day's cap serves calls of that UTC day only: the next day's calls count on the next day's.
    const dayEnds = hold.spendDay ? Date.parse(`${hold.spendDay}T00:00:00Z`) + 86_400_000 : Number.POSITIVE_INFINITY;
    const lease: Lease = {
      key,
      hold,
      remaining: hold.amountCents,
      inFlight: 0,
      lastUsedAt: now,
      retireAt: Math.min(now + LEASE_MAX_AGE_MS, dayEnds),
      retired: false,
    };
    unreleased.add(lease);
    return lease;
  };

  const reserveFor = async (request: ChargeRequest, leaseCents: number, leaseOnly = false): Promise<CreditHold> => {
    if (request.source === 'earnings') {
      const hold = await tryReserveEarnings(db, {
        userId: request.userId,
        amountCents: request.priceCents,
        leaseCents,
        leaseOnly,
        lifetimeSeconds: holdLifetimeSeconds,
      });
      if (!hold) throw new NoLeaseError();
      return hold;
    }
    return reserveCharge(db, {
      userId: request.userId,
      amountCents: request.priceCents,
      leaseCents,
      apiKeyId: request.apiKeyId,
      monthlySpendLimitCents: request.monthlySpendLimitCents,
      dailySpendLimitCents: request.dailySpendLimitCents ?? null,
      lifetimeSeconds: holdLifetimeSeconds,
    });
  };

  /**
   * A slice down to its last quarter: the next one is reserved now, in the background, and served
   * from once this one is used up. If the caller cannot afford it, nothing happens (the call that
   * finds the lease empty reserves as usual).
   */
  const reserveAhead = (key: string, lease: Lease, request: ChargeRequest) => {
    const slice = request.priceCents * callsPerLease;
    if (callsPerLease < 4 || lease.retired || lease.hold.amountCents < slice) return;
    if (lease.remaining > Math.floor(lease.hold.amountCents / 4) || acquiring.has(key) || upcoming.has(key)) return;
    // A caller whose slices last under a second gets twice the last one ahead (up to 16 slices), so
    // a steady high rate costs a reservation and a release per few hundred calls, not per 20. The
    // reservation still takes a large slice only when the money holds twice it (holds.ts).
    const now = Date.now();
    const last = growth.get(key);
    const factor = last && now - last.reservedAt < FAST_SLICE_MS ? Math.min(MAX_SLICE_GROWTH, last.factor * 2) : 1;
    growth.set(key, { factor, reservedAt: now });
    const reservation = reserveFor(request, slice * factor).then(
      (hold) => {
        if (hold.amountCents < slice * factor) growth.delete(key);
        upcoming.set(key, newLease(key, hold));
      },
      () => {
        growth.delete(key);
      },
    );
    acquiring.set(key, reservation);
    void reservation.finally(() => {
      if (acquiring.get(key) === reservation) acquiring.delete(key);
    });
  };

  return {
    /**
     * Takes the price from this process's lease for the caller, reserving a new one when needed.
     * With `leaseOnly`, only a lease of several calls will do: when the money cannot hold one, it
     * throws NoLeaseError and reserves nothing (no single-call hold).
     */
    async take(request: ChargeRequest, { leaseOnly = false }: { leaseOnly?: boolean } = {}): Promise<LeasedCharge> {
      const key = `${request.source === 'earnings' ? 'earnings:' : ''}${request.userId}|${request.apiKeyId ?? ''}|${request.monthlySpendLimitCents ?? ''}|${request.dailySpendLimitCents ?? ''}`;
      for (;;) {
        const lease = leases.get(key);
        if (usable(lease, request.priceCents)) {
          const charge = takeFrom(lease, request.priceCents);
          reserveAhead(key, lease, request);
          return charge;
        }
        if (lease) retire(lease);
        const next = upcoming.get(key);
        if (next) {
          upcoming.delete(key);
          leases.set(key, next);
          continue;
        }
        // One reservation at a time per caller in this process; the others wait and use its lease.
        const pending = acquiring.get(key);
        if (pending) {
          await pending.catch(() => undefined);
          continue;
        }
        const reserve = (leaseCents: number) => reserveFor(request, leaseCents, leaseOnly);
        // The lease size is chosen from a snapshot; if another process reserved meanwhile and the
        // slice no longer fits, try again for just this call.
        const reservation = reserve(request.priceCents * callsPerLease).catch((error: unknown) => {
          if (callsPerLease > 1 && !leaseOnly && error instanceof AppError && (error.code === 'insufficient_credits' || error.code === 'key_limit_exceeded')) {
            return reserve(request.priceCents);
          }
          throw error;
        });
        acquiring.set(key, reservation);
        let hold: CreditHold;
        try {
          hold = await reservation;
        } finally {
          if (acquiring.get(key) === reservation) acquiring.delete(key);
        }
        const created = newLease(key, hold);
        const charge = takeFrom(created, request.priceCents);
        // A single-call hold is not shared: it is released once its call is over.
        if (created.remaining >= request.priceCents) leases.set(key, created);
        else created.retired = true;
        return charge;
      }
    },

    /**
     * The call needs at most `cents` of what it took (a model-cost reservation once the answer's
     * actual cost is known): the rest goes back to the lease at once, not when the settlement
     * commits. The hold in the database is unchanged (it is what the lease has left plus what its
     * calls in flight took), and the settlement draws at most `cents` for this call.
     */
    keepOnly(charge: LeasedCharge, cents: number) {
      if (cents >= charge.amountCents) return;
      charge.lease.remaining += charge.amountCents - cents;
      charge.amountCents = cents;
    },

    /** The call failed: its price goes back to the lease (and a spent lease back to the caller before this resolves). */
    async giveBack(charge: LeasedCharge): Promise<void> {
      const { lease } = charge;
      lease.remaining += charge.amountCents;
      lease.inFlight--;
      if (lease.retired && lease.inFlight === 0) await release(lease);
    },

    /**
     * The call's settlement committed: what it drew came off the hold. A model-cost reservation
     * draws only the call's actual cost, so the rest (`unusedCents`) goes back to the lease.
     */
    settled(charge: LeasedCharge, unusedCents = 0) {
      const { lease } = charge;
      lease.remaining += unusedCents;
      lease.inFlight--;
      if (lease.retired && lease.inFlight === 0) void release(lease);
    },

    /**
     * The holds this process's leases still use (not released yet): its sweeper neither releases
     * them nor settles journaled calls from them, however late their renewal (decision 0140).
     */
    liveHoldIds(): string[] {
      return [...unreleased].map((lease) => lease.hold.id);
    },

    /**
     * Renews the holds now, not at the next third of their lifetime: a settlement that was stalled
     * long held its holds locked, so the renewals skipped them (RENEW_HOLDS_SQL) and they may have
     * expired meanwhile; another process's sweeper must not find them so.
     */
    renewNow(): void {
      renew();
    },

    /** Releases every lease (at shutdown, once calls are over). */
    async close() {
      clearInterval(sweeper);
      clearInterval(renewer);
      await Promise.all([...acquiring.values()].map((pending) => pending.catch(() => undefined)));
      for (const lease of [...leases.values(), ...upcoming.values()]) retire(lease);
      await Promise.all([...releasing]);
    },
  };
}

export type CreditLeases = ReturnType<typeof createCreditLeases>;
