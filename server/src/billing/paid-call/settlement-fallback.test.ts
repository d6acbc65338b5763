// A delivered call is charged even when recording its details fails: the second attempt leaves
// out what could not be stored (end user, chat turn), and the failure is reported.
import { describe, expect, it } from 'vitest';
import { type SettlementBatcher, settleOrChargeOnly } from './settlement-batcher.ts';
import type { Settlement } from './settlement-sql.ts';

const settlement = {
  invocationId: 'i',
  endUser: 'someone',
  turn: { conversationId: 'c', isNew: true, userContent: 'q', answer: 'a' },
  charge: { hold: { id: 'h' } },
} as unknown as Settlement;

describe('settleOrChargeOnly', () => {
  it('charges without the details when recording them fails, and reports it', async () => {
    const written: Settlement[] = [];
    const urgency: (boolean | undefined)[] = [];
    const batcher: SettlementBatcher = {
      async settle(item, options) {
        urgency.push(options?.urgent);
        if (item.turn) throw new Error('invalid byte sequence');
        written.push(item);
        return { paidCents: 0, postedCents: 0, drawnCents: 0 };
      },
      hurry: () => undefined,
    };
    const reported: unknown[] = [];
    await settleOrChargeOnly(batcher, settlement, (error) => reported.push(error));
    expect(written).toEqual([{ ...settlement, endUser: '', turn: null }]);
    expect(reported).toHaveLength(1);
    // The retry is not gathered (SETTLEMENT_GATHER_MS): whoever waits for the call has waited for the first try.
    expect(urgency).toEqual([undefined, true]);
  });

  it('settles once when nothing fails', async () => {
    const written: Settlement[] = [];
    const settle = async (item: Settlement) => {
      written.push(item);
      return { paidCents: 0, postedCents: 0, drawnCents: 0 };
    };
    await settleOrChargeOnly({ settle, hurry: () => undefined }, settlement, () => {
      throw new Error('not reported');
    });
    expect(written).toEqual([settlement]);
  });
});
