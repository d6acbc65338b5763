// Issue 61, trap 2: while pricing, the builder shows the model cost at every step (not only on Basic
// Info, before the template's variables exist), and publishing below the worst case of a call asks
// for a visible confirmation with its own button; the price change notice says when and what.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { priceNoticeText } from '@/components/pricing/price-notice';
import { withTestAccessToken } from '@/testing/fake-apps-server';
import { renderSignedInPage } from '@/testing/test-utils';
import { fakePromptsServer } from '../testing/fake-prompts-server';
import { PromptBuilderPage } from './prompt-builder-page';

vi.mock('../components/monaco-prompt-editor', () => import('../testing/mock-monaco-editor'));

beforeAll(async () => {
  await import('../components/monaco-prompt-editor');
});

withTestAccessToken();

function renderBuilder() {
  return renderSignedInPage('/prompt-builder', <PromptBuilderPage mode="create" />, '/prompt-builder', <p>Elsewhere</p>);
}

const change = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

/** Names the prompt "Essay" and writes its system prompt and template. */
async function writePrompt(template: string) {
  change('Prompt Name', 'Essay');
  fireEvent.change(await screen.findByLabelText('System Prompt'), { target: { value: 'Be brief.' } });
  fireEvent.change(screen.getByLabelText('User Prompt Template'), { target: { value: template } });
}

describe('pricing in the prompt builder (issue 61)', () => {
  it('shows the model cost on every step, following the template as it gets its variables', async () => {
    const server = fakePromptsServer();
    renderBuilder();
    await writePrompt('Write about {{topic}} in a {{tone}} tone, {{words}} words');
    for (const tab of ['Input/Output Schema', 'Model Settings', 'Preview & Test']) {
      fireEvent.click(screen.getByRole('tab', { name: tab }));
      const panel = within(screen.getByTestId('model-cost-panel'));
      expect(panel.getByText(/Model cost per call/)).toBeTruthy();
    }
    // The estimate asked for is the template as it now is, with its three variables.
    await waitFor(() => expect(server.bodyOf('POST /api/prompt/cost-estimate/')?.prompt_template).toContain('{{words}}'));
  });

  it('asks for a visible confirmation before publishing below the largest call’s model cost, and publishes on it', async () => {
    const server = fakePromptsServer();
    renderBuilder();
    await writePrompt('About {{topic}}');
    change('Price per Call (USD)', '0.01');
    // The fake's worst case: ~4096 tokens out at $30 per million, far above 1 cent.
    await waitFor(() => expect(screen.getByTestId('model-cost-margin').textContent).toContain('below the worst case'));
    expect(screen.getByTestId('model-cost-margin').className).toContain('bg-amber-50');
    fireEvent.click(screen.getByRole('button', { name: 'Save & Publish' }));
    const warning = await screen.findByTestId('margin-warning');
    expect(warning.textContent).toContain('below the model cost of its largest possible call');
    expect(server.calls().filter((call) => call.startsWith('POST /api/app/') || call.startsWith('PATCH'))).toEqual([]);
    fireEvent.click(within(warning).getByRole('button', { name: 'Publish at this price' }));
    await waitFor(() => expect(screen.getByText('Elsewhere')).toBeTruthy());
  });

  it('a price covering the worst case publishes without asking', async () => {
    fakePromptsServer();
    renderBuilder();
    await writePrompt('About {{topic}}');
    change('Price per Call (USD)', '5');
    // Whatever template the estimate has settled on, its worst case (~4096 tokens out at $30 per million) is below $5.
    await waitFor(() => expect(screen.getByTestId('model-cost-worst-case').textContent).not.toBe(''));
    fireEvent.click(screen.getByRole('button', { name: 'Save & Publish' }));
    await waitFor(() => expect(screen.getByText('Elsewhere')).toBeTruthy());
    expect(screen.queryByTestId('margin-warning')).toBeNull();
  });
});

describe('the price change notice (issue 61, trap 1)', () => {
  it('says when the new price applies, why, and what the calls until then cost the creator', () => {
    const lines = priceNoticeText({
      price_cents: 1,
      upcoming_price_cents: 10,
      price_notice: {
        applies_at: '2026-12-14T00:00:00.000Z',
        notice_days: 7,
        calls_last_period: 12,
        subscribers: 0,
        typical_model_cost_micros: 30_000,
        loss_until_then_micros: 240_000,
      },
    })!;
    expect(lines[0]).toContain('Your new price $0.10 applies on');
    expect(lines[0]).toContain('12 calls from others in the last 7 days');
    expect(lines[1]).toBe(
      "Until then each call sells at $0.01 against a typical model cost of $0.0300: at the last 7 days' pace the calls until then cost you about $0.2400.",
    );
    expect(priceNoticeText({ price_cents: 10, upcoming_price_cents: null, price_notice: undefined })).toBeNull();
  });
});
