import { describe, expect, it } from 'vitest';
import { DIFY_PROVIDER, makeWorkflowConfig } from '../testing/fake-workflows-server';
import { buildWorkflowConfigBody, inputFormFields, isSecretLooking, parsePrice, settingsValuesOf } from './workflow-detail.utils';

describe('workflow detail rules', () => {
  it('renders a field as a password when its title contains password or key', () => {
    expect(isSecretLooking('API Key')).toBe(true);
    expect(isSecretLooking('Admin Password')).toBe(true);
    expect(isSecretLooking('Monkey Name')).toBe(true);
    expect(isSecretLooking('API Base URL')).toBe(false);
    expect(isSecretLooking('App ID')).toBe(false);
  });

  it('builds the PATCH body: the provider’s fields only, numbers parsed, the saved value for non-numbers, changelog Updated via UI', () => {
    const saved = makeWorkflowConfig({ timeout_seconds: 120 });
    const values = { ...settingsValuesOf(saved), timeout_seconds: 'abc', max_iterations: '4', enable_logging: false };
    values.provider_config = { ...values.provider_config, stray: 'x' };
    expect(buildWorkflowConfigBody(values, saved, DIFY_PROVIDER)).toEqual({
      provider: 'dify',
      provider_config: { base_url: 'https://api.dify.ai/v1', api_key: '••••••••WXYZ', app_id: 'dify-app-1' },
      timeout_seconds: 120,
      max_iterations: 4,
      enable_logging: false,
      changelog: 'Updated via UI',
    });
  });

  it('flattens Dify’s input form', () => {
    expect(
      inputFormFields({
        name: '',
        description: '',
        mode: 'chat',
        user_input_form: [
          { select: { label: 'Tone', variable: 'tone', required: false, options: ['calm', 'loud'], default: 'calm' } },
          { paragraph: { variable: 'text', required: true } },
          { bogus: 3 },
        ],
      }),
    ).toEqual([
      { kind: 'select', label: 'Tone', variable: 'tone', required: false, options: ['calm', 'loud'], maxLength: null, defaultValue: 'calm' },
      { kind: 'paragraph', label: 'text', variable: 'text', required: true, options: [], maxLength: null, defaultValue: null },
    ]);
  });

  it('a non-numeric price becomes 0', () => {
    expect(parsePrice('abc')).toBe(0);
    expect(parsePrice('0.25')).toBe(25);
  });
});
