// Settles successful calls in batches. Calls that finish while a batch is being written queue up
// and go into the next one, so under load many calls share one statement and one commit, and a
// lone call is written at once. A batch is ONE SQL statement (settlement-sql.ts), all or nothing.
// Whether a call's answer waits for its batch is service.ts's choice (the settlement window); a call
// answered first is journaled first (answer-journal.ts), so a process that dies before its batch
// commits leaves holds that pay for its answered calls once they expire, and only the rest comes
// back to the callers (decision 0039; settlement-recovery.ts).

import type { Database } from '../../db/client.ts';
import { MAX_BATCH, type SettledCall, type Settlement, writeSettlements } from './settlement-sql.ts';

const RETRYABLE = new Set(['40P01', '40001']);

export interface SettlementBatcher {
  /**
   * Resolves once the call's settlement is committed, with the model cost it posted and drew. An
   * urgent settlement (someone waits for its commit) goes out on the next turn, with every
   * settlement gathered so far.
   */
  settle(settlement: Settlement, options?: { urgent?: boolean }): Promise<SettledCall>;
  /** Writes what is gathered on the next turn instead of at the end of its gathering time (a read waits for it, or shutdown). */
  hurry(): void;
}

export interface SettlementGathering {
  /**
   * How long a settlement nobody waits for may wait for others to share its statement (config
   * SETTLEMENT_GATHER_MS; decision 0060). 0: it is written on the next turn of the event loop, and
   * under load the calls answered while a batch is being written share the next one.
   */
  gatherMs?: number;
  /** Once this many settlements are gathered, they are written on the next turn. */
  gatherCalls?: number;
  /** Told each batch written: its calls and how long its statement and commit took (metrics). */
  onBatch?: (calls: number, seconds: number) => void;
}

export function createSettlementBatcher(db: Database, { gatherMs = 0, gatherCalls = 32, onBatch }: SettlementGathering = {}): SettlementBatcher {
  let queue: { settlement: Settlement; at: number; resolve: (settled: SettledCall) => void; reject: (error: unknown) => void }[] = [];
  let flushing = false;
  let scheduled = false;
  /** Someone waits for a commit (an urgent settlement, a read, shutdown): what is queued goes at once. */
  let urgent = false;
  let timer: NodeJS.Timeout | null = null;

  const writeWithRetry = async (batch: Settlement[]) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await writeSettlements(db, batch);
      } catch (error) {
        if (attempt < 3 && RETRYABLE.has((error as { code?: string }).code ?? '')) continue;
        throw error;
      }
    }
  };

  // Without gathering, a batch is due as soon as something is queued. With it, once the oldest
  // settlement has waited gatherMs, or gatherCalls are queued, or someone waits. A timer may fire a
  // little before performance.now() says the time is up, so its batch goes regardless (`forced`).
  const due = () => urgent || gatherMs <= 0 || queue.length >= gatherCalls || performance.now() - queue[0]!.at >= gatherMs;

  const flush = async (forced: boolean) => {
    flushing = true;
    try {
      while (queue.length > 0 && (forced || due())) {
        forced = false;
        const pending = queue.slice(0, MAX_BATCH);
        queue = queue.slice(MAX_BATCH);
        if (queue.length === 0) urgent = false;
        try {
          const started = onBatch ? performance.now() : 0;
          const settled = await writeWithRetry(pending.map((entry) => entry.settlement));
          onBatch?.(pending.length, (performance.now() - started) / 1000);
          for (const [index, entry] of pending.entries()) entry.resolve(settled[index]!);
        } catch (error) {
          if (pending.length === 1) {
            pending[0]!.reject(error);
            continue;
          }
          // One bad call must not fail the others: write them one by one.
          for (const entry of pending) {
            try {
              const [settled] = await writeWithRetry([entry.settlement]);
              entry.resolve(settled!);
            } catch (single) {
              entry.reject(single);
            }
          }
        }
      }
    } finally {
      flushing = false;
      arm();
    }
  };

  /** Written on the next turn of the event loop, not now: an answer that does not wait for its commit goes out first, and the calls answered in this turn share the batch. */
  const arm = () => {
    if (flushing || scheduled || queue.length === 0) return;
    if (due()) {
      if (timer) clearTimeout(timer);
      timer = null;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        if (!flushing) void flush(false);
      });
    } else if (!timer) {
      timer = setTimeout(
        () => {
          timer = null;
          if (!flushing && !scheduled) void flush(true);
        },
        Math.max(0, queue[0]!.at + gatherMs - performance.now()),
      );
    }
  };

  return {
    settle(settlement, options) {
      return new Promise<SettledCall>((resolve, reject) => {
        queue.push({ settlement, at: gatherMs > 0 ? performance.now() : 0, resolve, reject });
        if (options?.urgent) urgent = true;
        arm();
      });
    },
    hurry() {
      if (queue.length === 0) return;
      urgent = true;
      arm();
    },
  };
}

/**
 * Settles a call whose answer is (or is about to be) delivered. When recording its details fails,
 * the call is still charged from its hold, with the details that could not be stored left out
 * (end user, chat turn); the failure is reported through onDetailsFailed.
 */
export async function settleOrChargeOnly(
  batcher: SettlementBatcher,
  settlement: Settlement,
  onDetailsFailed: (error: unknown) => void,
  options?: { urgent?: boolean },
): Promise<SettledCall> {
  try {
    return await batcher.settle(settlement, options);
  } catch (error) {
    onDetailsFailed(error);
    // Urgent: the first write failed, so whoever waits for this call (its answer, a read) has waited already.
    return await batcher.settle({ ...settlement, endUser: '', turn: null }, { urgent: true });
  }
}

/** Whether a settlement moves money from a hold, so a crash after its answer would leave it unpaid. */
export const owesMoney = (settlement: Settlement) => settlement.charge !== null || settlement.cost !== null;
