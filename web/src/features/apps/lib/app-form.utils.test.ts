import { describe, expect, it } from 'vitest';
import { PER_CALL_PRICE_MESSAGE, priceFormValuesOf } from '@/components/pricing/price-form.utils';
import { buildCreateBody, buildUpdateBody, initialCreateValues, typeFromQuery, validateCreateApp, validateEditApp } from './app-form.utils';

describe('create form', () => {
  it('defaults to visibility private, completion mode and $1.00 (typed in dollars, issue 61)', () => {
    expect(initialCreateValues('prompt')).toMatchObject({ type: 'prompt', visibility: 'private', interaction_mode: 'completion', price: '1.00' });
  });

  it('takes the type from ?type, prompt by default', () => {
    expect(typeFromQuery('workflow')).toBe('workflow');
    expect(typeFromQuery('prompt')).toBe('prompt');
    expect(typeFromQuery(null)).toBe('prompt');
    expect(typeFromQuery('other')).toBe('prompt');
  });

  it('requires name, type, visibility, the mode of a prompt and a price above 0 (sub-cent allowed, issue 60)', () => {
    expect(validateCreateApp({ ...initialCreateValues('prompt'), name: ' ', type: '', visibility: '', price: '0' })).toEqual({
      name: 'Name is required.',
      type: 'Type is required.',
      visibility: 'Visibility is required.',
      price: PER_CALL_PRICE_MESSAGE,
    });
    expect(validateCreateApp({ ...initialCreateValues('prompt'), name: 'A', interaction_mode: '' })).toEqual({
      interaction_mode: 'Interaction mode is required.',
    });
    expect(validateCreateApp({ ...initialCreateValues('prompt'), name: 'A' })).toEqual({});
  });

  it('requires the provider fields for a workflow only', () => {
    expect(validateCreateApp({ ...initialCreateValues('workflow'), name: 'A' })).toEqual({
      provider_app_id: 'Provider App ID is required.',
      provider_api_key: 'Provider API Key is required.',
    });
    expect(validateCreateApp({ ...initialCreateValues('workflow'), name: 'A', provider_app_id: 'x', provider_api_key: 'y' })).toEqual({});
  });

  it('sends the mode only for prompts and the provider config only for workflows', () => {
    expect(buildCreateBody({ ...initialCreateValues('prompt'), name: ' A ', provider_app_id: 'ignored' })).toEqual({
      name: 'A',
      description: '',
      type: 'prompt',
      interaction_mode: 'completion',
      visibility: 'private',
      price_cents: 100,
    });
    expect(buildCreateBody({ ...initialCreateValues('workflow'), name: 'W', provider_app_id: ' id ', provider_api_key: ' key ' })).toEqual({
      name: 'W',
      description: '',
      type: 'workflow',
      visibility: 'private',
      price_cents: 100,
      provider_config: { app_id: 'id', api_key: 'key', base_url: 'https://api.dify.ai/v1' },
    });
  });
});

describe('edit form', () => {
  it('needs a name and a price above 0', () => {
    const values = { ...priceFormValuesOf(null, 1), name: 'A', description: '', visibility: 'public' as const, price: '0.01' };
    expect(validateEditApp(values)).toEqual({});
    expect(validateEditApp({ ...values, name: '', price: 'x' })).toEqual({ name: 'Name is required.', price: PER_CALL_PRICE_MESSAGE });
    expect(buildUpdateBody({ ...values, price: '2.50' })).toEqual({ name: 'A', description: '', visibility: 'public', price_cents: 250 });
  });
});

describe('buildCreateBody of a workflow (issue 25)', () => {
  it('sends the mode of the tested Dify app, so the endpoint shown is right before the first call', async () => {
    const { buildCreateBody, initialCreateValues } = await import('./app-form.utils');
    const values = { ...initialCreateValues('workflow'), name: 'Flow', provider_app_id: 'a', provider_api_key: 'k' };
    expect(buildCreateBody(values, 'completion').interaction_mode).toBe('completion');
    expect(buildCreateBody(values, 'advanced-chat').interaction_mode).toBe('chat');
    expect(buildCreateBody(values).interaction_mode).toBeUndefined();
  });
});
