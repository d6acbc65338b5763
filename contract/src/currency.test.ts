// The one money formatter of the web and the server (issue 56 item 4).
import { describe, expect, it } from 'vitest';
import { formatCents, formatMinor, formatMinorWithCode } from './currency.ts';

describe('formatMinor', () => {
  it('writes each currency in its own unit and symbol, never dividing a zero-decimal amount', () => {
    expect(formatMinor(2500, 'usd')).toBe('$25.00');
    expect(formatMinor(123456, 'USD')).toBe('$1,234.56');
    expect(formatMinor(950, 'eur')).toBe('€9.50');
    expect(formatMinor(1500, 'jpy')).toBe('¥1,500');
    expect(formatMinor(100000, 'vnd')).toBe('₫100,000');
    expect(formatMinor(-250, 'usd')).toBe('-$2.50');
  });

  it('writes -0 as zero, not "-$0.00"', () => {
    expect(formatMinor(-0, 'usd')).toBe('$0.00');
    expect(formatMinor(-0, 'eur')).toBe('€0.00');
  });

  it('writes US cents without Intl exactly as Intl does', () => {
    const intl = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
    for (const cents of [0, 1, 99, 100, 100_000, 123_456_789, -1, -123_456]) expect(formatCents(cents)).toBe(intl.format(cents / 100));
  });
});

describe('formatMinorWithCode', () => {
  it('writes plain figures with the code', () => {
    expect(formatMinorWithCode(2500, 'usd')).toBe('25.00 USD');
    expect(formatMinorWithCode(1500, 'jpy')).toBe('1500 JPY');
  });
});
