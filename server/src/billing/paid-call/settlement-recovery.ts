// Answered calls whose process died before their settlement committed (decision 0039): the
// journal (answer-journal.ts) left them in answered_calls, owed by the holds their process left;
// here they are charged from those holds, by the same statement as a live settlement
// (settlement-sql.ts). The sweeper of each process runs this round, then releases the holds of
// dead processes (holds.ts).
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.ts';
import type { AnswerJournal } from './answer-journal.ts';
import { sweepExpiredHolds } from './holds.ts';
import { forgetAnsweredCall, isCallRecorded, type Settlement, selectOwedAnsweredCalls, writeSettlements } from './settlement-sql.ts';

export interface RecoveredCalls {
  /** Answered calls of a dead process now charged. */
  settled: number;
  /** Journal rows dropped: the call was settled already, or its hold was gone (it went free). */
  dropped: { id: string; reason: string }[];
  /** Journal rows that could not be settled this time (they stay for the next sweep). */
  failed: { id: string; error: unknown }[];
}

const parseJournaled = (text: string): Settlement => {
  const settlement = JSON.parse(text) as Settlement;
  return { ...settlement, createdAt: new Date(settlement.createdAt) };
};

/**
 * Settles the answered calls of processes that died before their settlement committed (decision
 * 0039): every journal row one of whose holds has expired (its process stopped renewing it), or
 * with `all`, every row (an embedded database just opened: no other process can be using it).
 * Each is charged by the same statement as a live settlement, from the hold its process left, so
 * a call is charged once: the statement deletes the journal row and inserts the invocation, whose
 * id is unique. A row that can no longer be settled (its hold was released, or the call is already
 * recorded) is dropped and reported; one that fails for another reason stays for the next sweep.
 *
 * `keep` says which holds the calling process's own live leases hold: their rows are its own calls,
 * whose settlement is under way, however late their renewal left the holds' expiry (decision 0140).
 *
 * A recorded call is looked for first, not left to the unique id: a row copied after a late
 * settlement's statement began outlives that statement's delete, and drawing its price again from a
 * hold the lease used up fails the hold's check before the insert can say "already settled".
 */
export async function recoverAnsweredCalls(
  db: Database,
  { all = false, keep = () => [] }: { all?: boolean; keep?: () => readonly string[] } = {},
): Promise<RecoveredCalls> {
  const recovered: RecoveredCalls = { settled: 0, dropped: [], failed: [] };
  const seen = new Set<string>();
  const drop = async (id: string, reason: string) => {
    await forgetAnsweredCall(db, id);
    recovered.dropped.push({ id, reason });
  };
  for (;;) {
    const rows = await selectOwedAnsweredCalls(db, all, keep());
    const fresh = rows.filter((row) => !seen.has(row.id));
    if (fresh.length === 0) return recovered;
    for (const row of fresh) seen.add(row.id);
    const settleable: Settlement[] = [];
    for (const row of fresh) {
      if (row.recorded) {
        await drop(row.id, 'already settled');
        continue;
      }
      const settlement = parseJournaled(row.settlement);
      const needed = (settlement.charge ? 1 : 0) + (settlement.cost && settlement.cost.hold.id !== settlement.charge?.hold.id ? 1 : 0);
      if (row.holds < needed) await drop(row.id, 'its hold was released before it settled: it goes free');
      else settleable.push(settlement);
    }
    const settleOne = async (settlement: Settlement) => {
      const id = settlement.invocationId;
      try {
        await writeSettlements(db, [settlement]);
        recovered.settled++;
      } catch (error) {
        const code = (error as { code?: string }).code;
        // Recorded meanwhile (by a late settlement of its own process): charged once, by whoever recorded it.
        if (code === '23505' || (await isCallRecorded(db, id))) await drop(id, 'already settled');
        else if (code === 'P0001') await drop(id, `cannot be charged (${(error as Error).message}): it goes free`);
        else {
          // Its details could not be stored: it is charged without them, as a live settlement would be
          // (settleOrChargeOnly); if that fails too, the row stays for the next sweep.
          await writeSettlements(db, [{ ...settlement, endUser: '', turn: null }]).then(
            () => void recovered.settled++,
            (retryError: unknown) => void recovered.failed.push({ id, error: retryError }),
          );
        }
      }
    };
    if (settleable.length === 0) continue;
    try {
      await writeSettlements(db, settleable);
      recovered.settled += settleable.length;
    } catch {
      for (const settlement of settleable) await settleOne(settlement);
    }
  }
}

export interface RecoverySweeper {
  /** A round now, or the one under way: with `all`, every journaled call is settled (an embedded database that opens). */
  sweep(all?: boolean): Promise<void>;
  /** Stops the rounds on a timer; resolves once the round under way, if any, is over. */
  stop(): Promise<void>;
}

/**
 * Every `everyMs`: charges the journaled calls of dead processes from their holds, then releases
 * the holds of dead processes (decision 0039). `ownHolds` lists the holds this process's live
 * leases still use: neither is done to them, whatever their expiry says (decision 0140).
 */
export function startRecoverySweeper(
  db: Database,
  journal: AnswerJournal,
  { everyMs, log, ownHolds = () => [] }: { everyMs: number; log?: FastifyBaseLogger; ownHolds?: () => readonly string[] },
): RecoverySweeper {
  let recovering: Promise<void> | null = null;
  const sweep = (all = false): Promise<void> => {
    recovering ??= (async () => {
      try {
        // First the calls a dead process of this machine journaled but did not copy (decision 0042).
        const imported = await journal.importDead({ all });
        if (imported > 0) log?.warn({ imported }, 'read the answer journal of a process that stopped');
        const recovered = await recoverAnsweredCalls(db, { all, keep: ownHolds });
        if (recovered.settled > 0) log?.warn({ settled: recovered.settled }, 'settled calls answered by a process that stopped before their settlement');
        for (const dropped of recovered.dropped) log?.error({ invocationId: dropped.id }, `an answered call left by a stopped process: ${dropped.reason}`);
        for (const failed of recovered.failed)
          log?.error({ err: failed.error, invocationId: failed.id }, 'settling an answered call left by a stopped process failed; the next sweep tries again');
      } catch (error) {
        log?.error({ err: error }, 'settling the answered calls of a stopped process failed');
      }
      await sweepExpiredHolds(db, { keep: ownHolds() }).catch((error: unknown) => log?.error({ err: error }, 'releasing expired credit holds failed'));
    })().finally(() => {
      recovering = null;
    });
    return recovering;
  };
  const timer = setInterval(() => void sweep(), everyMs);
  timer.unref();
  return {
    sweep,
    async stop() {
      clearInterval(timer);
      await recovering;
    },
  };
}
