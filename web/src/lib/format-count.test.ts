import { describe, expect, it } from 'vitest';
import { expectAnswers } from '@/testing/answers';
import { withIntlEdgeCases } from '@/testing/intl-cases';
import { formatCount, groupThousands } from './format-count';

describe('formatCount', () => {
  it('groups thousands', () => {
    expectAnswers(formatCount, [0, 999, 1000, 12_345, -1_234_567], ['0', '999', '1,000', '12,345', '-1,234,567']);
    expect(groupThousands('1234567890')).toBe('1,234,567,890');
  });

  it("writes exactly what Intl's en-US format writes, whole numbers or not", () => {
    const intl = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
    const values = withIntlEdgeCases([0, -0, 1, -1, 12, 123, 1234, 12_345, 123_456, 1_234_567, 0.4, 0.5, 1.5, 2.5, -2.5, -0.4, 1234.5678]);
    for (const value of values) expect(formatCount(value), String(value)).toBe(intl.format(value));
  });
});
