import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders, testRuntimeConfig } from '@/testing/test-utils';
import { DEMO_MODEL_NOTICE_TITLE, DemoModelNotice } from './demo-model-notice';

const withDemo = { ...testRuntimeConfig, demo_models: [{ name: 'claude-3-haiku', provider: 'anthropic' as const }] };

describe('DemoModelNotice', () => {
  it('says a model the server answers with the demo model is free and how to configure its provider', () => {
    renderWithProviders(<DemoModelNotice model="claude-3-haiku" />, { runtimeConfig: withDemo });
    const notice = screen.getByRole('region', { name: 'Demo model' });
    expect(notice.textContent).toContain(DEMO_MODEL_NOTICE_TITLE);
    expect(notice.textContent).toContain('built-in demo model');
    expect(notice.textContent).toContain('"claude-3-haiku"');
    expect(notice.textContent).toContain('never charged');
    expect(notice.textContent).toContain('ANTHROPIC_API_KEY');
  });

  it('says nothing for a model with a configured provider, or before the model is known', () => {
    renderWithProviders(
      <>
        <DemoModelNotice model="gpt-4" />
        <DemoModelNotice model={undefined} />
      </>,
      { runtimeConfig: withDemo },
    );
    expect(screen.queryByTestId('demo-model-notice')).toBeNull();
  });
});
