// Where a paid call is charged. The gateway asks for a charge before it calls the upstream (take),
// and reports the outcome: the answer was delivered (settle) or the call failed (giveBack, then
// recordFailure). Everything in between is billing's:
//   - an active subscription's included call covers the call before credits do (included-calls.ts);
//   - otherwise the price comes out of this process's credit lease, a hold in PostgreSQL that
//     serves several calls (leases.ts over the holds of holds.ts);
//   - settling computes the platform fee (../platform-fee.ts) and writes the money, the ledger, the
//     invocation and its rollups in one batched statement (settlement-batcher.ts, settlement-sql.ts);
//     a failed call is recorded with the same rollups (queries.ts) and costs nothing (the calls'
//     shapes and their settlement: reported-calls.ts);
//   - a call on the operator's key first reserves its worst model cost from the app's owner, and
//     keeps of it only what the price does not cover once the answer's cost is known
//     (model-cost-reservations.ts);
//   - the answer need not wait for that commit: the lease already holds the price, so while fewer
//     than `settlementWindowCalls` answered calls are waiting for theirs, the gateway answers at
//     once; `written()` lets this process's reads wait for them (read-your-writes). Such a call is
//     journaled first (a line in this process's journal file, copied to answered_calls when its
//     settlement is late: answer-journal.ts), so a crash of this process leaves it owed by its
//     lease, not free, and nothing is charged twice (decisions 0024, 0039, 0042).
// The sweeper started here (settlement-recovery.ts) copies the journal files of processes of this
// machine that died to answered_calls, settles the journaled calls of a process that died, from its
// lease's hold, once the hold expires (at once on an embedded database that opens), then releases
// holds whose process died.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chargeMicros, type RateCard } from '@tollbooth/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.ts';
import type { InvalidationBus } from '../../db/invalidation.ts';
import { outcomeOfErrorType } from '../../platform/call-outcomes.ts';
import type { Metrics } from '../../platform/metrics.ts';
import { MICROS_PER_CENT } from '../../providers/model-prices.ts';
import { platformFeeOf } from '../platform-fee.ts';
import { createAnswerJournal } from './answer-journal.ts';
import { type CoveredCall, createIncludedCalls } from './included-calls.ts';
import { createCreditLeases, type LeasedCharge } from './leases.ts';
import { createModelCostReservations } from './model-cost-reservations.ts';
import { recordInvocation } from './queries.ts';
import { type DeliveredCall, type FailedCall, settlementOf } from './reported-calls.ts';
import { createSettlementBatcher, owesMoney, settleOrChargeOnly } from './settlement-batcher.ts';
import { startRecoverySweeper } from './settlement-recovery.ts';
import { forgetAnsweredCall, type SettledCall, type Settlement } from './settlement-sql.ts';

export type { DeliveredCall, FailedCall } from './reported-calls.ts';

/** Who pays: the caller, and the API key whose monthly spend limit (and a publishable key's daily cap) applies. */
export interface Payer {
  userId: string;
  apiKeyId: string | null;
  monthlySpendLimitCents: number | null;
  dailySpendLimitCents?: number | null;
}

/** A call's reservation. Only priceCents is for the gateway; the rest is billing's to settle or give back. */
export interface CallCharge {
  /** What the call costs the caller: 0 for a free call or one an included call covers. */
  readonly priceCents: number;
  /** The call's share of a credit lease; null when nothing is held. */
  lease: LeasedCharge | null;
  /** The subscription's included call this call uses instead of credits. */
  included: CoveredCall | null;
  /** The owner's reservation for the model cost the price does not cover (decision 0025); null when the price covers it. */
  cost: LeasedCharge | null;
  /** The app's rate card (issue 60); null for a whole-cent price per call (priceCents is then the charge) and for free calls. */
  card: RateCard | null;
  /** The most the call may cost, in micro-dollars: what was authorised (priceCents is it rounded up to a cent). */
  mostMicros: number;
  /** What the call was charged, in micro-dollars, once it is settled (null before). */
  chargedMicros: number | null;
}

/**
 * The most a call can cost upstream, in micro-dollars: `quick` is a cheap upper bound (from bytes),
 * `precise()` a tighter one (from a tokenizer), asked only when the quick one is not covered by the price.
 */
export interface ModelCostBound {
  quickMicros: number;
  preciseMicros: () => number;
}

export interface PaidCallOptions {
  /** The platform's share of each paid call, in basis points. */
  platformFeeBps: number;
  /** How long a hold lives unless renewed (CLAIM_LIFETIME_SECONDS); the sweeper runs every sixth of it. */
  holdLifetimeSeconds?: number;
  onRenewError?: (error: unknown) => void;
  log?: FastifyBaseLogger;
  /** Lets billing cache which callers have subscriptions (included-calls.ts). */
  invalidation?: InvalidationBus;
  /** How many answered calls may wait for their settlement commit at once (0: none; config SETTLEMENT_WINDOW_CALLS). */
  settlementWindowCalls?: number;
  /**
   * Where this process journals its answered calls, shared with the other processes of this machine
   * on the same database (answerJournalDirectory); a directory of its own when not given.
   */
  journalDirectory?: string;
  /** How late a journaled call's settlement may be before the call is copied to answered_calls (ANSWER_JOURNAL_COPY_AFTER_MS). */
  journalCopyAfterMs?: number;
  /** How long an answered call's settlement may wait for others to share its statement (SETTLEMENT_GATHER_MS; 0: the next turn). */
  settlementGatherMs?: number;
  /** Counts settled money, settlement batches and answers that went free (null: metrics off). */
  metrics?: Metrics | null;
}

export function createPaidCalls(db: Database, options: PaidCallOptions) {
  const leases = createCreditLeases(db, { holdLifetimeSeconds: options.holdLifetimeSeconds, onRenewError: options.onRenewError });
  const includedCalls = createIncludedCalls(db, options.invalidation);
  const metrics = options.metrics ?? null;
  const lifetimeMs = (options.holdLifetimeSeconds ?? 90) * 1000;
  const settlements = createSettlementBatcher(db, {
    gatherMs: options.settlementGatherMs ?? 0,
    onBatch: (calls, seconds) => {
      metrics?.batch(calls, seconds);
      // A batch stalled this long kept its holds locked, so the renewals skipped them: renewed now (decision 0140).
      if (seconds * 1000 >= lifetimeMs / 6) leases.renewNow();
    },
  });
  const journal = createAnswerJournal(db, {
    directory: options.journalDirectory ?? mkdtempSync(path.join(tmpdir(), 'tollbooth-answered-calls-')),
    copyAfterMs: options.journalCopyAfterMs,
    staleAfterMs: (options.holdLifetimeSeconds ?? 90) * 1000,
    onError: (error, message) => options.log?.error({ err: error }, message),
  });
  const window = options.settlementWindowCalls ?? 0;
  /** Settlements of calls that were answered before their commit; each settles (never rejects). */
  const unsettled = new Set<Promise<void>>();
  /** Answer-first calls whose journal line is being written (answer-journal.ts writes a turn's lines together): they count in the window too. */
  let journaling = 0;
  // This process's own live holds are never the sweeper's, however late their renewal (decision 0140).
  const sweeper = startRecoverySweeper(db, journal, { everyMs: Math.max(1000, lifetimeMs / 6), log: options.log, ownHolds: leases.liveHoldIds });
  // An embedded database is one process's: every call journaled in it was answered by a process that
  // is gone, so it is settled now, before this process's reads (which wait for `unsettled`). On a
  // shared database, the journal files of dead processes of this machine are read at once too, so
  // their calls are in answered_calls before any sweeper could release the holds that owe them.
  const startup = sweeper.sweep(db.kind === 'pglite');
  unsettled.add(startup);
  void startup.finally(() => unsettled.delete(startup));

  const giveBack = async (charge: CallCharge): Promise<void> => {
    if (charge.lease) await leases.giveBack(charge.lease);
    if (charge.included) await includedCalls.giveBack(charge.included);
    if (charge.cost) await leases.giveBack(charge.cost);
  };
  const modelCosts = createModelCostReservations(leases, options.platformFeeBps);
  /** The platform's fee on a price in cents, or on an exact amount in micro-dollars (floored; the ledger posts it from a running total). */
  const feeOf = (amount: number) => platformFeeOf(amount, options.platformFeeBps);
  /** Returns a settled call's reservations to their leases: the charge came off its hold, the cost hold lost only what the call drew. */
  const settledLeases = (lease: LeasedCharge | null, cost: LeasedCharge | null, settled: SettledCall) => {
    if (lease) leases.settled(lease, lease.amountCents - settled.paidCents);
    if (cost) leases.settled(cost, cost.amountCents - settled.drawnCents);
  };

  /**
   * A delivered call whose answer waits for its commit: it resolves once committed, and a failure
   * throws (the gateway then gives the charge back and answers an error). Such a call is not
   * gathered: it takes the gathered ones with it.
   */
  const settleBeforeAnswer = async (charge: CallCharge, call: DeliveredCall, settlement: Settlement): Promise<void> => {
    const settled = await settleOrChargeOnly(
      settlements,
      settlement,
      (error) => options.log?.error({ err: error, appId: call.appId }, 'recording a call failed; charged it without details'),
      { urgent: true },
    );
    // Settled: the price came off the hold, so a later failure must not give it back.
    settledLeases(charge.lease, charge.cost, settled);
    metrics?.settled(settlement.chargeMicros ?? 0, settlement.feeMicros ?? 0, settlement.modelCostMicros);
    charge.lease = null;
    charge.cost = null;
  };

  /**
   * A delivered call answered before its commit: journaled first when it moves money, it resolves at
   * once and the commit follows. Should the commit fail, the answered call goes free: its price goes
   * back to the lease, and it is logged. A call whose journal line cannot be written waits for its
   * commit instead (settleBeforeAnswer).
   */
  const settleAfterAnswer = async (charge: CallCharge, call: DeliveredCall, settlement: Settlement): Promise<void> => {
    let journaled = false;
    if (owesMoney(settlement)) {
      // Journaled before it is answered: if this process dies before the commit, its lease owes the call (decisions 0039, 0042).
      journaling++;
      try {
        await journal.record(settlement);
        journaled = true;
      } catch (error) {
        options.log?.error({ err: error, appId: call.appId }, 'journaling an answered call failed; its answer waits for its settlement');
      } finally {
        journaling--;
      }
      if (!journaled) return settleBeforeAnswer(charge, call, settlement);
    }
    const committed = settleOrChargeOnly(
      settlements,
      settlement,
      (error) => options.log?.error({ err: error, appId: call.appId }, 'recording a call failed; charged it without details'),
      { urgent: false },
    );
    const commit = journaled
      ? committed.then(
          (settled) => {
            journal.done(call.invocationId, 'settled');
            return settled;
          },
          (error: unknown) => {
            journal.done(call.invocationId, 'free');
            throw error;
          },
        )
      : committed;
    // Answered first: from here the charge is the commit's to finish, not the gateway's to give back.
    const { lease, included, cost } = charge;
    charge.lease = null;
    charge.included = null;
    charge.cost = null;
    const done = commit.then(
      (settled) => {
        settledLeases(lease, cost, settled);
        metrics?.settled(settlement.chargeMicros ?? 0, settlement.feeMicros ?? 0, settlement.modelCostMicros);
      },
      async (error: unknown) => {
        metrics?.unchargedAnswer();
        options.log?.error(
          { err: error, appId: call.appId, invocationId: call.invocationId, priceCents: charge.priceCents },
          'settling an answered call failed; it goes free',
        );
        await forgetAnsweredCall(db, call.invocationId).catch((forgetError: unknown) =>
          options.log?.error({ err: forgetError, invocationId: call.invocationId }, 'taking a call that went free out of the journal failed'),
        );
        await giveBack({ priceCents: charge.priceCents, lease, included, cost, card: null, mostMicros: 0, chargedMicros: null }).catch(
          (giveBackError: unknown) => options.log?.error({ err: giveBackError }, 'giving back the charge of an unsettled call failed'),
        );
      },
    );
    unsettled.add(done);
    void done.finally(() => unsettled.delete(done));
  };

  return {
    /**
     * Reserves a call's price (its list price, already checked against the caller's caps): an
     * included call covers it (charged 0), else it is taken from a credit lease. Throws
     * insufficient_credits or key_limit_exceeded when the caller cannot pay.
     */
    async take(
      payer: Payer,
      call: { appId: string; listPriceCents: number; ownerId: string; modelCost: ModelCostBound | null; card?: RateCard | null; mostMicros?: number },
    ): Promise<CallCharge> {
      const mostMicros = call.mostMicros ?? call.listPriceCents * MICROS_PER_CENT;
      const included = call.listPriceCents > 0 ? await includedCalls.cover(payer.userId, call.appId, mostMicros) : null;
      const priceCents = included ? 0 : call.listPriceCents;
      // Spelt out, not `{ ...payer, priceCents }`: V8 gives each such object a hidden class of its own (decision 0058).
      const lease =
        priceCents > 0
          ? await leases.take({
              userId: payer.userId,
              apiKeyId: payer.apiKeyId,
              monthlySpendLimitCents: payer.monthlySpendLimitCents,
              dailySpendLimitCents: payer.dailySpendLimitCents,
              priceCents,
            })
          : null;
      const card = priceCents > 0 || included?.usageMicros ? (call.card ?? null) : null;
      const charge: CallCharge = {
        priceCents,
        lease,
        included,
        cost: null,
        card,
        mostMicros: priceCents > 0 || included?.usageMicros ? mostMicros : 0,
        chargedMicros: null,
      };
      // Any call can go unpaid after the model answered (its answer fails the output schema, its
      // stream is cut before any chunk, its caller hangs up): its model cost is then the creator's.
      // So every call on the operator's key reserves its worst-case model cost from the creator
      // before the model is asked (issue 60 item 8): the operator never pays for an answer, and no
      // creator balance goes below zero. A paid call draws from it only what its price less the fee
      // does not cover, and gives the rest back at once (settle). The precise bound (a tokenizer's)
      // keeps the reservation, and so the creator's lease, small.
      if (call.modelCost && call.modelCost.quickMicros > 0) {
        const worstMicros = call.modelCost.preciseMicros();
        try {
          charge.cost = await modelCosts.reserve({ ownerId: call.ownerId, ownCall: payer.userId === call.ownerId, worstMicros, priceCents, card });
        } catch (error) {
          await giveBack(charge);
          throw error;
        }
      }
      return charge;
    },

    /**
     * The answer is (about to be) delivered: charges it and records it. With `beforeAnswer` (a call
     * with an Idempotency-Key), or while the window is full, it waits for the commit
     * (settleBeforeAnswer); otherwise the answer goes first (settleAfterAnswer). If its details
     * cannot be stored, the call is still charged without them (logged).
     */
    settle(charge: CallCharge, call: DeliveredCall, { beforeAnswer = false }: { beforeAnswer?: boolean } = {}): Promise<void> {
      // The capture (issue 60): a rate card's charge from the call's usage, never above what was authorised; today's price per call as it is.
      const captured = () =>
        charge.card
          ? Math.min(
              charge.mostMicros,
              chargeMicros(charge.card, {
                inputTokens: call.inputTokens,
                outputTokens: call.outputTokens,
                cachedInputTokens: call.cachedInputTokens,
                modelCostMicros: call.modelCostMicros,
              }),
            )
          : charge.mostMicros;
      const chargedMicros = charge.lease ? (charge.card ? captured() : charge.priceCents * MICROS_PER_CENT) : 0;
      charge.chargedMicros = chargedMicros;
      if (charge.included && charge.included.usageMicros > 0) {
        // Charged against a plan's dollars of usage: what the call's most exceeded its charge by goes back to the plan (reads wait for it).
        const used = captured();
        const back = includedCalls
          .used(charge.included, used)
          .catch((error: unknown) => options.log?.error({ err: error, appId: call.appId }, "giving a plan's unused usage back failed"));
        // Should the call still go free (its settlement failing), only what it kept goes back.
        charge.included.usageMicros = used;
        unsettled.add(back);
        void back.finally(() => unsettled.delete(back));
      }
      const feeMicros = feeOf(chargedMicros);
      // The lease keeps what the call can post at most (its charge rounded up); the rest of the authorisation goes back now.
      if (charge.lease && charge.card) leases.keepOnly(charge.lease, Math.ceil(chargedMicros / MICROS_PER_CENT));
      const heldCents = charge.lease ? charge.lease.amountCents : charge.priceCents;
      // The rest of the worst model cost the call reserved beyond what it can draw goes back now (model-cost-reservations.ts).
      if (charge.cost) modelCosts.keepDrawable(charge.cost, call.modelCostMicros, charge.lease ? chargedMicros : null);
      const settlement = settlementOf(call, {
        priceCents: heldCents,
        chargeMicros: chargedMicros,
        feeMicros,
        charge: charge.lease ? { hold: charge.lease.hold, feeCents: feeOf(charge.priceCents) } : null,
        cost: charge.cost ? { hold: charge.cost.hold, reservedCents: charge.cost.amountCents } : null,
        failure: undefined,
        turn: call.turn,
      });
      if (beforeAnswer || unsettled.size + journaling >= window) return settleBeforeAnswer(charge, call, settlement);
      return settleAfterAnswer(charge, call, settlement);
    },

    /**
     * The model answered but the caller is not charged (the answer failed the output schema, the
     * caller left before any of it was sent, the provider failed after reporting usage; decision
     * 0037): the caller's price and included call go back, and the call is recorded as failed with
     * its model cost, which the app's owner bears, drawn from the cost reservation first, then from
     * their earnings (which may go below zero). Resolves once committed; if that fails the call is
     * recorded as a plain failure and the reservation goes back (logged).
     */
    async settleUnpaid(charge: CallCharge, call: DeliveredCall & { errorType: string }): Promise<void> {
      const { lease, included, cost } = charge;
      charge.lease = null;
      charge.included = null;
      charge.cost = null;
      if (lease) await leases.giveBack(lease);
      if (included) await includedCalls.giveBack(included);
      const settlement = settlementOf(call, {
        priceCents: 0,
        chargeMicros: 0,
        feeMicros: 0,
        charge: null,
        cost: cost ? { hold: cost.hold, reservedCents: cost.amountCents } : null,
        failure: { errorType: call.errorType, outcome: outcomeOfErrorType(call.errorType) },
        turn: null,
      });
      try {
        const settled = await settlements.settle(settlement, { urgent: true });
        if (cost) leases.settled(cost, cost.amountCents - settled.drawnCents);
      } catch (error) {
        options.log?.error({ err: error, appId: call.appId, invocationId: call.invocationId }, "posting an unpaid call's model cost failed");
        if (cost) await leases.giveBack(cost);
        await recordInvocation(db, {
          appId: call.appId,
          callerId: call.callerId,
          apiKeyId: call.apiKeyId,
          endUser: call.endUser,
          mode: call.mode,
          status: 'error',
          errorType: call.errorType,
          latencyMs: call.latencyMs,
          inputTokens: 0,
          outputTokens: 0,
          priceCents: 0,
          demo: call.demo,
          conversationId: null,
        });
      }
    },

    /**
     * Resolves once every call this process answered so far is settled (or given up); null when none
     * is waiting. Reads of balances, spend, analytics and conversations wait for it, so a caller or
     * creator sees their calls at once in the process that answered them.
     */
    written(): Promise<unknown> | null {
      if (unsettled.size === 0) return null;
      settlements.hurry();
      return Promise.all(unsettled);
    },

    /** The call failed (or its caller left before any answer): its price and included call go back. */
    giveBack,

    /** This process's journaled answered calls waiting for their settlement (metrics; observability/money-health.ts). */
    journalFigures: () => journal.figures(),

    /** Records a failed call (with or without a charge given back) under its error type. */
    async recordFailure(call: FailedCall): Promise<void> {
      await recordInvocation(db, { ...call, status: 'error', inputTokens: 0, outputTokens: 0, priceCents: 0, conversationId: null });
    },

    /** Stops the sweeper, waits for answered calls' settlements, and releases every lease (at shutdown, once calls are over). */
    async close(): Promise<void> {
      const stopped = sweeper.stop();
      settlements.hurry();
      await Promise.all(unsettled);
      await stopped;
      await journal.close();
      await leases.close();
    },
  };
}

export type PaidCalls = ReturnType<typeof createPaidCalls>;
