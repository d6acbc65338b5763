import { describe, expect, it } from 'vitest';
import { analyticsPeriod, centsToDollars, meanSeconds, percent, periodDays } from './period.ts';

describe('analytics periods and units', () => {
  it('lists the last N UTC days ending today, whatever the time of day', () => {
    expect(periodDays(3, new Date('2024-03-01T23:59:59.999Z'))).toEqual(['2024-02-28', '2024-02-29', '2024-03-01']);
    expect(periodDays(2, new Date('2024-03-01T00:00:00.000Z'))).toEqual(['2024-02-29', '2024-03-01']);
    const period = analyticsPeriod(90, new Date('2024-12-31T12:00:00Z'));
    expect(period.days).toHaveLength(90);
    expect(period.start).toBe('2024-10-03');
    expect(period.end).toBe('2024-12-31');
  });

  it('rounds rates to two decimals and means to the millisecond', () => {
    expect(percent(2, 3)).toBe(66.67);
    expect(percent(1, 3)).toBe(33.33);
    expect(percent(1, 8)).toBe(12.5);
    expect(percent(0, 0)).toBe(0);
    expect(percent(5, 5)).toBe(100);
    expect(meanSeconds(6601, 5)).toBe(1.32);
    expect(meanSeconds(1001, 2)).toBe(0.501);
    expect(meanSeconds(0, 0)).toBe(0);
    expect(centsToDollars(476)).toBe(4.76);
    expect(centsToDollars(5)).toBe(0.05);
  });
});
