import { describe, expect, it } from 'vitest';
import { expectAnswers } from '@/testing/answers';
import { withIntlEdgeCases } from '@/testing/intl-cases';
import { formatCents, formatDate, formatDollars, formatMinor, formatUpcomingPrice } from './format';

describe('formatCents', () => {
  it('shows cents as dollars with two decimals', () => {
    expectAnswers(formatCents, [100, 0, 5, 1999, 500], ['$1.00', '$0.00', '$0.05', '$19.99', '$5.00']);
  });

  it('groups thousands', () => {
    expect(formatCents(123456789)).toBe('$1,234,567.89');
  });

  it('shows negative amounts with a minus sign', () => {
    expect(formatCents(-250)).toBe('-$2.50');
  });

  it("writes exactly what Intl's en-US dollar format writes, without building one for whole cents", () => {
    const intl = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
    const values = withIntlEdgeCases([
      ...[0, -0, 1, 9, 10, 99, 100, 101, 999, 1000, 99_999, 100_000, 123_456_789, -1, -99, -100, -123_456, 0.4, 0.5, -0.4, -0.5, 1.5, 2.5, -2.5],
      ...[1e15 - 1, -(1e15 - 1), 1e15],
    ]);
    for (const cents of values) expect(formatCents(cents), String(cents)).toBe(intl.format(Math.round(cents) / 100));
  });
});

describe('formatDollars', () => {
  it('shows two decimals', () => {
    expect(formatDollars(5)).toBe('$5.00');
    expect(formatDollars(0.1)).toBe('$0.10');
  });
});

describe('formatDate', () => {
  it('shows N/A for a missing or invalid date', () => {
    expect(formatDate(null)).toBe('N/A');
    expect(formatDate('')).toBe('N/A');
    expect(formatDate('not a date')).toBe('N/A');
  });

  it('shows a valid timestamp as a local date', () => {
    const iso = '2024-03-15T12:00:00.000Z';
    expect(formatDate(iso)).toBe(new Date(iso).toLocaleDateString());
  });
});

describe('formatUpcomingPrice', () => {
  it('shows the new price and its date, or nothing', () => {
    expect(formatUpcomingPrice({ upcoming_price_cents: 500, upcoming_price_at: '2026-12-01T12:00:00.000Z' })).toBe(
      `$5.00 from ${new Date('2026-12-01T12:00:00.000Z').toLocaleDateString()}`,
    );
    expect(formatUpcomingPrice({ upcoming_price_cents: null, upcoming_price_at: null })).toBeNull();
  });
});

describe('formatMinor', () => {
  it("writes an amount in its currency's own minor unit: zero-decimal currencies are whole amounts, never divided by 100", () => {
    expectAnswers((amount: number) => formatMinor(amount, 'vnd'), [100_000, -90_000], ['₫100,000', '-₫90,000']);
    expectAnswers((currency: string) => formatMinor(1500, currency), ['jpy', 'JPY'], ['¥1,500', '¥1,500']);
    expect(formatMinor(950, 'eur')).toBe('€9.50');
  });

  it('US dollars are the same text as formatCents; nothing else ever gets a dollar sign', () => {
    expect(formatMinor(2500, 'usd')).toBe('$25.00');
    expect(formatMinor(2500, 'usd')).toBe(formatCents(2500));
    for (const currency of ['vnd', 'jpy', 'krw', 'eur', 'gbp']) expect(formatMinor(100_000, currency)).not.toContain('$');
  });

  it('an unknown code is written with the code, not as dollars', () => {
    expect(formatMinor(1234, 'zzz')).toMatch(/ZZZ/);
    expect(formatMinor(1234, 'zzz')).not.toContain('$');
  });
});
