import { describe, expect, it } from 'vitest';
import { planPrice } from './plan-price';

describe('planPrice', () => {
  it('keeps the spec’s dollar text, and writes other currencies with their own symbol and minor unit', () => {
    expect([planPrice(9.99, 'usd'), planPrice(100_000, 'vnd'), planPrice(500, 'jpy'), planPrice(9.5, 'eur')]).toEqual(['$9.99', '₫100,000', '¥500', '€9.50']);
  });
});
