import { microsOfDollarsText } from '@tollbooth/contract';
import { describe, expect, it } from 'vitest';
import { callChargeText } from './charged';

describe('callChargeText', () => {
  it("says a call's exact amount, to the micro-dollar (issue 60)", () => {
    expect(callChargeText({ total_price: '0.0051200' })).toBe("Charged: $0.00512, the app's price, from your credits.");
    expect(callChargeText({ total_price: '0.000001' })).toBe("Charged: $0.000001, the app's price, from your credits.");
    expect(callChargeText({ total_price: '0.0500000' })).toBe("Charged: $0.05, the app's price, from your credits.");
    expect(callChargeText({ total_price: '12.5' })).toBe("Charged: $12.50, the app's price, from your credits.");
  });

  it('says when nothing was charged, and what an owner pays on their own app', () => {
    expect(callChargeText({ total_price: '0.0000000' })).toBe('Charged: $0.00 (a call included in your plan, or a free app).');
    expect(callChargeText({})).toBe('Charged: $0.00 (a call included in your plan, or a free app).');
    expect(callChargeText({ total_price: '0', owner_model_cost: '0.003060' })).toBe(
      'Charged: no price (your own app) and $0.00306 of model use, from your credits.',
    );
    expect(callChargeText({ total_price: '0.05' }, true)).toBe('Charged: nothing — the built-in demo model answered (demo answers are free).');
  });
});

describe('microsOfDollarsText', () => {
  it('reads decimal dollars as micro-dollars exactly', () => {
    expect(microsOfDollarsText('0.0051200')).toBe(5_120);
    expect(microsOfDollarsText('1')).toBe(1_000_000);
    expect(microsOfDollarsText('.25')).toBe(250_000);
    expect(microsOfDollarsText('0.29')).toBe(290_000); // 0.29 * 1e6 is 289999.99999999994 in floating point
    expect(microsOfDollarsText('0.0000015')).toBe(2);
    expect(microsOfDollarsText('-0.01')).toBe(-10_000);
    expect(microsOfDollarsText('')).toBe(0);
    expect(microsOfDollarsText('abc')).toBe(0);
  });
});
