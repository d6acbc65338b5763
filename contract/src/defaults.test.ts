import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { ApplicationCreate } from './apps.ts';
import { DEFAULT_APP_SETTINGS, DEFAULT_INPUT_SCHEMA, DEFAULT_MODEL_SETTINGS, DEFAULT_PRICE_CENTS, DEFAULT_TEMPLATE } from './defaults.ts';
import { IoSchema, PromptConfigUpdate } from './prompts.ts';
import { detectVariables } from './template.ts';

describe('defaults', () => {
  it('price a new application at one unit, in integer cents', () => {
    expect(DEFAULT_PRICE_CENTS).toBe(100);
    expect(Number.isInteger(DEFAULT_APP_SETTINGS.price_cents)).toBe(true);
  });
  it('are values the contract itself accepts', () => {
    const { status: _status, ...creatable } = DEFAULT_APP_SETTINGS;
    expect(Value.Check(ApplicationCreate, { name: 'A', type: 'prompt', ...creatable })).toBe(true);
    expect(Value.Check(PromptConfigUpdate, { ...DEFAULT_MODEL_SETTINGS })).toBe(true);
    expect(Value.Check(IoSchema, DEFAULT_INPUT_SCHEMA)).toBe(true);
  });
  it('give a template whose variables the default input schema declares and requires', () => {
    expect(detectVariables(DEFAULT_TEMPLATE)).toEqual(DEFAULT_INPUT_SCHEMA.required);
    expect(Object.keys(DEFAULT_INPUT_SCHEMA.properties)).toEqual(detectVariables(DEFAULT_TEMPLATE));
  });
});
