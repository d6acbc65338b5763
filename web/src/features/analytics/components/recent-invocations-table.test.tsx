import { render, screen, within } from '@testing-library/react';
import type { RecentInvocation } from '@tollbooth/contract';
import { describe, expect, it } from 'vitest';
import { RecentInvocationsTable } from './recent-invocations-table';

const call = (overrides: Partial<RecentInvocation>): RecentInvocation => ({
  id: '0123456789abcdef-0000',
  end_user: 'ada',
  status: 'success',
  outcome: 'success',
  error_type: '',
  response_time: 0.5,
  input_tokens: 1200,
  output_tokens: 340,
  price_cents: 0,
  charge_micros: 0,
  model_cost: 0,
  created_at: '2024-05-30T12:34:56.000Z',
  ...overrides,
});

describe('RecentInvocationsTable', () => {
  it("shows each call's exact amount (issue 60), with the cents posted for it on hover", () => {
    render(
      <RecentInvocationsTable
        invocations={[
          // A per-token call below a cent: nothing posted yet (its meter posts a cent once they add up).
          call({ id: 'aaaa000000000000-0000', charge_micros: 5_120, price_cents: 0 }),
          // The call whose charge took the meter over a cent.
          call({ id: 'bbbb000000000000-0000', charge_micros: 5_120, price_cents: 1 }),
          call({ id: 'cccc000000000000-0000', charge_micros: 1_250_000, price_cents: 125 }),
        ]}
      />,
    );
    const [first, second, third] = screen.getAllByTestId('invocation-row').map((row) => within(row));
    expect(first!.getByText('$0.00512').title).toBe('0 cents posted');
    expect(second!.getByText('$0.00512').title).toBe('1 cent posted');
    expect(third!.getByText('$1.25').title).toBe('125 cents posted');
  });
});
