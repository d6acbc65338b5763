// Issue 25 item 10: the model selects offer only the models this server answers, without aliases,
// and mark the demo ones.
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders, testRuntimeConfig } from '@/testing/test-utils';
import { initialDraft } from '../lib/prompt-builder.utils';
import { BuilderModelSettings } from './builder-model-settings';

const runtimeConfig = {
  ...testRuntimeConfig,
  demo_models: [{ name: 'claude-3-opus', provider: 'anthropic' as const }],
  models: [
    { name: 'gpt-4-turbo', provider: 'openai' as const, demo: false },
    { name: 'gpt-4', provider: 'openai' as const, demo: false },
    { name: 'claude-3-opus', provider: 'anthropic' as const, demo: true },
  ],
};

const optionLabels = () =>
  within(screen.getByLabelText('Model'))
    .getAllByRole('option')
    .map((option) => option.textContent);

describe('the model select', () => {
  it('offers only the server’s models, no aliases, the demo ones marked', () => {
    renderWithProviders(<BuilderModelSettings draft={{ ...initialDraft(), model: 'gpt-4' }} onChange={() => {}} />, { runtimeConfig });
    const labels = optionLabels();
    expect(labels).toHaveLength(3);
    expect(labels).toContain('gpt-4');
    expect(labels).toContain('claude-3-opus (demo model: provider not configured)');
    for (const hidden of ['gpt4', 'claude3', 'gemini', 'gemini-pro', 'mixtral']) expect(labels.some((label) => label?.startsWith(hidden))).toBe(false);
  });

  it('keeps a stored model that is no longer offered, so opening and saving never changes it', () => {
    renderWithProviders(<BuilderModelSettings draft={{ ...initialDraft(), model: 'gpt4' }} onChange={() => {}} />, { runtimeConfig });
    expect(optionLabels()).toContain('gpt4');
    expect((screen.getByLabelText('Model') as HTMLSelectElement).value).toBe('gpt4');
  });
});
