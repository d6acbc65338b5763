import { describe, expect, it } from 'vitest';
import { planPrice } from './plan-price';

describe('planPrice', () => {
  it('keeps the spec’s dollar text, and writes other currencies with their own symbol and minor unit', () => {
    expect(planPrice(9.99, 'usd')).toBe('$9.99');
    expect(planPrice(100_000, 'vnd')).toBe('₫100,000');
    expect(planPrice(500, 'jpy')).toBe('¥500');
    expect(planPrice(9.5, 'eur')).toBe('€9.50');
  });
});
