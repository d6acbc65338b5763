import { rateCardOf } from '@tollbooth/contract';
import { describe, expect, it } from 'vitest';
import { fieldMessageOf, priceBodyOf, priceFieldOfParam, priceFormValuesOf, validatePriceForm } from './price-form.utils';

describe('price form values', () => {
  it('reads a whole-cent price per call as before, and sends it as price_cents', () => {
    const values = priceFormValuesOf(null, 250);
    expect(values).toMatchObject({ price_form: 'per_call', price: '2.50', minimum: '', maximum: '' });
    expect(priceBodyOf(values)).toEqual({ price_cents: 250 });
  });

  it('round-trips every form of card through the fields', () => {
    for (const pricing of [
      { form: 'per_call' as const, call_micros: 5_000 },
      { form: 'per_call' as const, call_micros: 20_000, max_call_micros: 20_000 },
      { form: 'per_token' as const, input_per_mtok_micros: 150_000, output_per_mtok_micros: 600_000, cached_input_per_mtok_micros: 75_000, call_micros: 1_000 },
      { form: 'per_token' as const, input_per_mtok_micros: 2_000_000, output_per_mtok_micros: 0, minimum_micros: 100, max_call_micros: 50_000 },
      { form: 'cost_plus' as const, markup_bps: 12_345, call_micros: 500 },
    ]) {
      const values = priceFormValuesOf(rateCardOf(pricing), 1);
      expect(validatePriceForm(values, 'prompt')).toEqual({});
      expect(priceBodyOf(values)).toEqual({ pricing });
    }
  });

  it('refuses cost plus for a workflow and a per-token workflow without a most', () => {
    const costPlus = priceFormValuesOf(rateCardOf({ form: 'cost_plus', markup_bps: 12_500 }), 1);
    expect(Object.keys(validatePriceForm(costPlus, 'workflow'))).toEqual(['price_form']);
    const perToken = priceFormValuesOf(rateCardOf({ form: 'per_token', input_per_mtok_micros: 1, output_per_mtok_micros: 1 }), 1);
    expect(Object.keys(validatePriceForm(perToken, 'workflow'))).toEqual(['maximum']);
    expect(validatePriceForm({ ...perToken, minimum: '0.5', maximum: '0.1' }, 'prompt')).toEqual({
      maximum: 'The most per call is below the minimum per call.',
    });
  });

  it('places a server 400 on the field its params name', () => {
    expect(priceFieldOfParam('pricing.call_micros', 'per_call')).toBe('price');
    expect(priceFieldOfParam('pricing.call_micros', 'per_token')).toBe('call_fee');
    expect(priceFieldOfParam('pricing.max_call_micros', 'per_token')).toBe('maximum');
    expect(priceFieldOfParam('pricing.form', 'cost_plus')).toBe('price_form');
    expect(priceFieldOfParam('name', 'per_call')).toBeNull();
    expect(fieldMessageOf('pricing.markup_bps: is required for a cost-plus price', 'pricing.markup_bps')).toBe('Is required for a cost-plus price');
  });
});
