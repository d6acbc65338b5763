// Margin in the forms (issue 22): the builder (create and edit) and the prompt detail page show
// the model's prices, the worst case at the current settings and the typical cost of the app's
// recent calls next to the price, follow the settings as they change, and warn once before saving
// a live app priced below its typical cost.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { type Pricing, rateCardOf } from '@tollbooth/contract';
import { Route, Routes } from 'react-router';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { expectAnswers } from '@/testing/answers';
import { makeApp, withTestAccessToken } from '@/testing/fake-apps-server';
import { renderSignedInPage, renderWithProviders, signedInAuth } from '@/testing/test-utils';
import { callMargins, cardBelowCostWarnings, formatMicros, formatPerMillion, priceBelowTypical } from '../lib/model-cost.utils';
import { PromptBuilderPage } from '../routes/prompt-builder-page';
import { PromptDetailPage } from '../routes/prompt-detail-page';
import { fakePromptsServer, makePromptConfig } from '../testing/fake-prompts-server';

vi.mock('./monaco-prompt-editor', () => import('../testing/mock-monaco-editor'));

beforeAll(async () => {
  await import('./monaco-prompt-editor');
});

withTestAccessToken();

const app = makeApp({ name: 'Essay Writer', slug: 'essay-writer', status: 'live', price_cents: 1 });
const config = makePromptConfig({ model: 'gpt-4-turbo', max_tokens: 4000, version: { system_prompt: 'Be brief.', prompt_template: '{{query}}' } });
// 16 + 9 + 9 characters in (the fake's bound), 4000 out, at $10 / $30 per million.
const WORST_CASE = (16 + 9 + 9) * 10 + 4000 * 30;

function renderAt(route: string, typicalMicros: Record<string, number> = {}) {
  const server = fakePromptsServer({ apps: [{ ...app }], configs: { 'essay-writer': config }, typicalMicros });
  renderWithProviders(
    <Routes>
      <Route path="/prompt-builder" element={<PromptBuilderPage mode="create" />} />
      <Route path="/applications/:slug/edit" element={<PromptBuilderPage mode="edit" />} />
      <Route path="/prompts/:slug" element={<PromptDetailPage />} />
      <Route path="*" element={<p>Elsewhere</p>} />
    </Routes>,
    { route, auth: signedInAuth() },
  );
  return server;
}

const panel = async () => within(await screen.findByTestId('model-cost-panel'));

describe('the model cost panel', () => {
  it('shows prices, the worst case and the typical cost in the edit form, and follows max_tokens', async () => {
    const server = renderAt('/applications/essay-writer/edit', { 'essay-writer': 50_000 });
    const costs = await panel();
    await waitFor(() => expect(costs.getByTestId('model-cost-typical').textContent).toContain('$0.0500'));
    expect(costs.getByTestId('model-cost-prices').textContent).toBe('$10 in · $30 out per million tokens');
    expect(costs.getByTestId('model-cost-worst-case').textContent).toContain(formatMicros(WORST_CASE));
    expect(costs.getByTestId('model-cost-worst-case').textContent).toContain('34 input + 4,000 output tokens');
    expect(costs.getByTestId('model-cost-typical').textContent).toContain('mean of the last 20 paid calls');
    // A price of 1 cent (100 µ$ × 100) is below the typical 5 cents.
    expect(costs.getByTestId('model-cost-margin').textContent).toContain('below the typical model cost');
    expect(server.bodyOf('POST /api/prompt/cost-estimate/')).toMatchObject({ model: 'gpt-4-turbo', max_tokens: 4000, app_slug: 'essay-writer' });

    fireEvent.click(screen.getByRole('tab', { name: 'Model Settings' }));
    fireEvent.change(screen.getByLabelText('Max Tokens'), { target: { value: '100' } });
    fireEvent.click(screen.getByRole('tab', { name: 'Basic Info' }));
    await waitFor(() => expect(screen.getByTestId('model-cost-worst-case').textContent).toContain('34 input + 100 output tokens'));
  });

  it('has no typical cost for a prompt not saved yet', async () => {
    const server = renderAt('/prompt-builder');
    const costs = await panel();
    await waitFor(() => expect(costs.getByTestId('model-cost-typical').textContent).toBe('No paid calls on this model yet'));
    expect(server.bodyOf('POST /api/prompt/cost-estimate/')).not.toHaveProperty('app_slug');
  });

  it('warns once before saving a live app priced below its typical cost, then saves', async () => {
    const server = renderAt('/applications/essay-writer/edit', { 'essay-writer': 50_000 });
    await waitFor(async () => expect((await panel()).getByTestId('model-cost-typical').textContent).toContain('$0.0500'));
    fireEvent.click(screen.getByRole('button', { name: 'Update Prompt' }));
    expect((await screen.findByTestId('margin-warning')).textContent).toContain('below the typical model cost of one call ($0.0500)');
    expect(server.calls().filter((call) => call.startsWith('PATCH'))).toEqual([]);
    fireEvent.click(screen.getByRole('button', { name: 'Update Prompt' }));
    await waitFor(() => expect(screen.getByText('Elsewhere')).toBeTruthy());
    expect(
      server
        .calls()
        .filter((call) => call.startsWith('PATCH'))
        .sort(),
    ).toEqual(['PATCH /api/app/essay-writer/', 'PATCH /api/app/essay-writer/prompt/']);
  });

  it('saves at once when the price covers the typical cost', async () => {
    const server = renderAt('/applications/essay-writer/edit', { 'essay-writer': 9_000 });
    await waitFor(async () => expect((await panel()).getByTestId('model-cost-typical').textContent).toContain('$0.0090'));
    fireEvent.click(screen.getByRole('button', { name: 'Update Prompt' }));
    await waitFor(() => expect(screen.getByText('Elsewhere')).toBeTruthy());
    expect(screen.queryByTestId('margin-warning')).toBeNull();
    expect(server.calls().filter((call) => call.startsWith('PATCH'))).toHaveLength(2);
  });

  it('neither warns nor holds the save of an app on its own provider key', async () => {
    const server = fakePromptsServer({
      apps: [{ ...app }],
      configs: { 'essay-writer': { ...config, key_source: 'own' } },
      typicalMicros: { 'essay-writer': 50_000 },
    });
    renderEditPage();
    const costs = await panel();
    await waitFor(() => expect(costs.getByTestId('model-cost-own-key')).toBeTruthy());
    await waitFor(() => expect(costs.getByTestId('model-cost-typical').textContent).toContain('$0.0500'));
    expect(costs.queryByTestId('model-cost-margin')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Update Prompt' }));
    await waitFor(() => expect(screen.getByText('Elsewhere')).toBeTruthy());
    expect(server.calls().filter((call) => call.startsWith('PATCH'))).toHaveLength(2);
  });

  it('shows the panel on the detail page and warns there too', async () => {
    const server = renderAt('/prompts/essay-writer', { 'essay-writer': 50_000 });
    const costs = await panel();
    await waitFor(() => expect(costs.getByTestId('model-cost-typical').textContent).toContain('$0.0500'));
    expect(server.bodyOf('POST /api/prompt/cost-estimate/')).toMatchObject({ system_prompt: 'Be brief.', app_slug: 'essay-writer' });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect((await screen.findByTestId('margin-warning')).textContent).toContain('Confirm to save it anyway');
    expect(server.calls().filter((call) => call.startsWith('PATCH'))).toEqual([]);
    // Raising the price above the typical cost saves at once.
    fireEvent.change(screen.getByLabelText('Price per Call (USD)'), { target: { value: '0.06' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Changes saved')).toBeTruthy();
    expect(screen.queryByTestId('margin-warning')).toBeNull();
  });
});

const card = (pricing: Pricing) => rateCardOf(pricing);

/** The builder's edit page of essay-writer, with somewhere to go after a save. */
function renderEditPage() {
  renderSignedInPage('/applications/:slug/edit', <PromptBuilderPage mode="edit" />, '/applications/essay-writer/edit', <p>Elsewhere</p>);
}

function renderDetailWith(pricing: Pricing, typicalMicros: Record<string, number> = {}) {
  fakePromptsServer({ apps: [{ ...app, price_cents: 1, pricing: card(pricing) }], configs: { 'essay-writer': config }, typicalMicros });
  renderSignedInPage('/prompts/:slug', <PromptDetailPage />, '/prompts/essay-writer');
}

describe('the margin under each price form (issue 60)', () => {
  it('warns when a per-token rate is below the model’s, and shows a typical and a worst call under the card', async () => {
    // The fake model costs $10 in / $30 out per million; the card sells output at $20.
    renderDetailWith({ form: 'per_token', input_per_mtok_micros: 12_000_000, output_per_mtok_micros: 20_000_000 }, { 'essay-writer': 60_170 });
    const costs = await panel();
    await waitFor(() => expect(costs.getByTestId('margin-typical').textContent).not.toContain('No paid calls'));
    const warning = costs.getByTestId('model-cost-form-warning').textContent;
    expect(warning).toContain("Your output price ($20.00 per million tokens) is below the model's ($30.00)");
    expect(warning).not.toContain('input price');
    // Today's per-call warnings weigh a price per call only.
    expect(costs.queryByTestId('model-cost-margin')).toBeNull();
    // Worst: 34 in + 4,000 out → charge ceil((34 × 12 + 4000 × 20) µ$) = $0.080408, cost $0.120340: a loss.
    const worst = costs.getByTestId('margin-worst').textContent;
    expect(worst).toContain('34 in + 4,000 out');
    expect(worst).toContain('$0.080408');
    expect(worst).toContain('$0.12034');
    expect(worst).toContain('-$0.039932');
    // Typical: the worst call's mix scaled to the mean cost (60,170 µ$ is half the worst): 17 in + 2,000 out.
    const typical = costs.getByTestId('margin-typical').textContent;
    expect(typical).toContain('17 in + 2,000 out');
    expect(typical).toContain('$0.040204');
    expect(costs.getByTestId('model-cost-margins').textContent).toContain('Per token: $12.00 in / $20.00 out per million tokens');
  });

  it('says nothing against a per-token card above the model’s rates', async () => {
    renderDetailWith({ form: 'per_token', input_per_mtok_micros: 15_000_000, output_per_mtok_micros: 45_000_000 });
    const costs = await panel();
    await waitFor(() => expect(costs.getByTestId('margin-worst').textContent).toContain('$0.18051'));
    expect(costs.queryByTestId('model-cost-form-warning')).toBeNull();
    expect(costs.getByTestId('margin-typical').textContent).toBe('TypicalNo paid calls on this model yet');
  });

  it('warns when a cost-plus markup is below 1, and charges the worst call its cost × markup + fee', async () => {
    renderDetailWith({ form: 'cost_plus', markup_bps: 9_000, call_micros: 1_000 });
    const costs = await panel();
    await waitFor(() => expect(costs.getByTestId('model-cost-form-warning').textContent).toContain('Your markup (× 0.9) is below 1'));
    // 120,340 µ$ × 0.9 = 108,306 + 1,000.
    expect(costs.getByTestId('margin-worst').textContent).toContain('$0.109306');
  });
});

describe('the prompt builder on a per-token app (issue 60)', () => {
  it('keeps the card when the price is left alone, and weighs it in the panel', async () => {
    const server = fakePromptsServer({
      apps: [{ ...app, price_cents: 1, pricing: card({ form: 'per_token', input_per_mtok_micros: 12_000_000, output_per_mtok_micros: 20_000_000 }) }],
      configs: { 'essay-writer': config },
    });
    renderEditPage();
    const costs = await panel();
    await waitFor(() => expect(costs.getByTestId('model-cost-form-warning').textContent).toContain('Your output price ($20.00 per million tokens)'));
    expect(screen.getByText(/Priced \$12\.00 in \/ \$20\.00 out per million tokens: kept unless you change this price/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Update Prompt' }));
    await waitFor(() => expect(screen.getByText('Elsewhere')).toBeTruthy());
    expect(server.bodyOf('PATCH /api/app/essay-writer/')).not.toHaveProperty('price_cents');
  });
});

describe('callMargins and cardBelowCostWarnings', () => {
  const estimate = { worst_case_input_tokens: 1_000, worst_case_output_tokens: 500, worst_case_micros: 25_000, typical_micros: 5_000 };
  it('charges each form at the typical and the worst call, with the fee when known', () => {
    const perCall = callMargins(card({ form: 'per_call', call_micros: 20_000 }), estimate, 1_000);
    expect(perCall.worst).toEqual({
      inputTokens: 1_000,
      outputTokens: 500,
      chargeMicros: 20_000,
      modelCostMicros: 25_000,
      feeMicros: 2_000,
      netMicros: -7_000,
    });
    expect(perCall.typical).toMatchObject({ inputTokens: 200, outputTokens: 100, chargeMicros: 20_000, netMicros: 13_000 });
    const capped = callMargins(
      card({ form: 'per_token', input_per_mtok_micros: 10_000_000, output_per_mtok_micros: 40_000_000, max_call_micros: 15_000 }),
      estimate,
    );
    expect(capped.worst).toMatchObject({ chargeMicros: 15_000, feeMicros: null, netMicros: -10_000 });
    expect(callMargins(card({ form: 'cost_plus', markup_bps: 12_500 }), { ...estimate, typical_micros: null }).typical).toBeNull();
  });

  it('warns per rate below the model’s, and for a markup below 1 only', () => {
    const prices = { prices: { input_per_million_usd: 2.5, output_per_million_usd: 10 } };
    expect(cardBelowCostWarnings(card({ form: 'per_token', input_per_mtok_micros: 2_500_000, output_per_mtok_micros: 10_000_000 }), prices)).toEqual([]);
    expect(cardBelowCostWarnings(card({ form: 'per_token', input_per_mtok_micros: 2_499_999, output_per_mtok_micros: 10_000_000 }), prices)).toHaveLength(1);
    expect(cardBelowCostWarnings(card({ form: 'cost_plus', markup_bps: 10_000 }), prices)).toEqual([]);
    expect(cardBelowCostWarnings(card({ form: 'per_call', call_micros: 1 }), prices)).toEqual([]);
  });
});

describe('model cost formats', () => {
  it('writes micro-dollars as dollars and prices per million tokens', () => {
    expectAnswers(formatMicros, [320_420, 100, 42, 0], ['$0.3204', '$0.0001', '$0.0000420', '$0']);
    expectAnswers(formatPerMillion, [10, 2.5, 0.075], ['$10', '$2.50', '$0.075']);
    expect(priceBelowTypical(1, { typical_micros: 10_001 })).toBe(true);
    expect(priceBelowTypical(1, { typical_micros: 10_000 })).toBe(false);
    expect(priceBelowTypical(1, { typical_micros: null })).toBe(false);
  });
});
