import { describe, expect, it } from 'vitest';
import { dollarsToCents, highPriceWarning, priceFarAboveCost } from './price';

describe('dollarsToCents', () => {
  it.each([
    ['1', 100],
    [' 0.42 ', 42],
    ['2.675', 268],
    ['', 0],
    ['abc', 0],
    ['-0.05', -5],
  ])('reads %j as %d', (input, cents) => {
    expect(dollarsToCents(input)).toBe(cents);
  });
});

describe('a price far above the cost (issue 61)', () => {
  it('asks above $1.00 (the default price) when no cost is known, and up to it never', () => {
    expect(priceFarAboveCost(100, null)).toBe(false);
    expect(priceFarAboveCost(101, null)).toBe(true);
  });

  it('asks when the price is at least 100 times the model cost of a call', () => {
    // $5.00 against $0.0031 a call: 1,600 times.
    expect(priceFarAboveCost(500, 3_100)).toBe(true);
    // $2.00 against a $0.10 worst case: 20 times, a plausible price.
    expect(priceFarAboveCost(200, 100_000)).toBe(false);
  });

  it('names the price in cents the creator may have meant', () => {
    expect(highPriceWarning(500, null)).toBe(
      '$5.00 per call is far above what a call costs. Most apps charge a few cents a call. Prices are in dollars: did you mean 5¢ ($0.05)?',
    );
    expect(highPriceWarning(150, 3_100)).toContain("A call's model cost is about $0.0031. Prices are in dollars.");
  });
});
