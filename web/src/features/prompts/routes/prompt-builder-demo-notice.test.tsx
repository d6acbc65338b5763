// The builder tells the creator, before publishing, when the chosen model is answered by the demo
// model on this server (and how to configure its provider).
import { fireEvent, screen } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { withTestAccessToken } from '@/testing/fake-apps-server';
import { renderWithProviders, signedInAuth, testRuntimeConfig } from '@/testing/test-utils';
import { fakePromptsServer } from '../testing/fake-prompts-server';
import { PromptBuilderPage } from './prompt-builder-page';

vi.mock('../components/monaco-prompt-editor', () => import('../testing/mock-monaco-editor'));

beforeAll(async () => {
  await import('../components/monaco-prompt-editor');
});

withTestAccessToken();

describe('the prompt builder and the demo model', () => {
  it('shows the demo notice while the chosen model has no configured provider, whichever tab is open', async () => {
    fakePromptsServer();
    renderWithProviders(
      <Routes>
        <Route path="/prompt-builder" element={<PromptBuilderPage mode="create" />} />
      </Routes>,
      {
        route: '/prompt-builder',
        auth: signedInAuth(),
        runtimeConfig: { ...testRuntimeConfig, demo_models: [{ name: 'claude-3-haiku', provider: 'anthropic' }] },
      },
    );
    expect(await screen.findByRole('heading', { name: 'Create New Prompt', level: 1 })).toBeTruthy();
    // The default model (gpt-4-turbo) has a provider here.
    expect(screen.queryByTestId('demo-model-notice')).toBeNull();

    fireEvent.click(screen.getByRole('tab', { name: 'Model Settings' }));
    fireEvent.change(screen.getByLabelText('Model'), { target: { value: 'claude-3-haiku' } });
    const notice = await screen.findByRole('region', { name: 'Demo model' });
    expect(notice.textContent).toContain('This app answers from the demo model');
    expect(notice.textContent).toContain('ANTHROPIC_API_KEY');

    fireEvent.click(screen.getByRole('tab', { name: 'Preview & Test' }));
    expect(screen.getByRole('region', { name: 'Demo model' })).toBeTruthy();

    // On the creator's own key the model is answered by their provider, never the demo model.
    fireEvent.click(screen.getByRole('tab', { name: 'Model Settings' }));
    fireEvent.change(screen.getByLabelText('Model key'), { target: { value: 'own' } });
    expect(screen.queryByTestId('demo-model-notice')).toBeNull();
    fireEvent.change(screen.getByLabelText('Model key'), { target: { value: 'platform' } });
    expect(screen.getByRole('region', { name: 'Demo model' })).toBeTruthy();

    fireEvent.click(screen.getByRole('tab', { name: 'Model Settings' }));
    fireEvent.change(screen.getByLabelText('Model'), { target: { value: 'gpt-4' } });
    expect(screen.queryByTestId('demo-model-notice')).toBeNull();
  });
});
