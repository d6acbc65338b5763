import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { makeApp, withTestAccessToken } from '@/testing/fake-apps-server';
import { perTokenCard } from '@/testing/rate-cards';
import { jsonResponse, renderSignedInPage } from '@/testing/test-utils';
import { fakePromptsServer, makePromptConfig } from '../testing/fake-prompts-server';
import { MODEL_TABLE } from '../testing/model-table';
import { PromptDetailPage } from './prompt-detail-page';

vi.mock('../components/monaco-prompt-editor', () => import('../testing/mock-monaco-editor'));

// The editor is lazily loaded; loading (and transforming) its module once here keeps that one-time
// cost out of whichever test would otherwise render it first, and inside its own 5 s budget.
beforeAll(async () => {
  await import('../components/monaco-prompt-editor');
});

withTestAccessToken();

const app = makeApp({
  name: 'Haiku Writer',
  slug: 'haiku-writer',
  description: 'Writes haiku',
  interaction_mode: 'chat',
  status: 'live',
  visibility: 'public',
});
const inputSchema = {
  type: 'object' as const,
  properties: { topic: { type: 'string' as const, description: 'Subject' } },
  required: ['topic'],
  additionalProperties: false,
};
const config = makePromptConfig({
  model: 'gpt-4-turbo',
  version: { prompt_template: 'A haiku about {{topic}}', input_schema: inputSchema },
});

function renderDetail(options: Parameters<typeof fakePromptsServer>[0] = {}, route = '/prompts/haiku-writer') {
  const server = fakePromptsServer({ apps: [{ ...app }], configs: { 'haiku-writer': config }, ...options });
  renderSignedInPage('/prompts/:slug', <PromptDetailPage />, route);
  return server;
}

const field = (label: string) => screen.getByLabelText(label) as HTMLInputElement;
const change = (label: string, value: string) => fireEvent.change(field(label), { target: { value } });
const openConfig = () => fireEvent.click(screen.getByRole('tab', { name: 'Prompt Config' }));

/** Once the page is there: Test Prompt on the Prompt Config tab, and the result panel. */
async function runTestPrompt() {
  await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 });
  openConfig();
  fireEvent.click(screen.getByRole('button', { name: 'Test Prompt' }));
  return screen.findByTestId('test-result');
}

describe('PromptDetailPage', () => {
  it('shows the header, badges, buttons and the basic settings', async () => {
    renderDetail();

    expect(await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 })).toBeTruthy();
    expect(screen.getByTestId('prompt-slug').textContent).toBe('haiku-writer');
    expect(screen.getByText('Writes haiku', { selector: 'p' })).toBeTruthy();
    const badges = within(screen.getByTestId('prompt-badges'));
    expect(badges.getByText('prompt')).toBeTruthy();
    expect(badges.getByText('Chat')).toBeTruthy();
    expect(badges.getByText('live').dataset.tone).toBe('green');
    expect(badges.getByText('public').dataset.tone).toBe('green');
    expect(screen.getByRole('link', { name: 'Back to List' }).getAttribute('href')).toBe('/prompts');
    expect(screen.getByRole('button', { name: 'Download App' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Save Changes' })).toBeTruthy();
    expect(screen.getAllByRole('tab').map((tab) => tab.textContent)).toEqual(['Basic Settings', 'Prompt Config', 'Version History']);

    expect(field('Application Name').value).toBe('Haiku Writer');
    expect(field('Status').value).toBe('live');
    expect(field('Description').value).toBe('Writes haiku');
    const mode = field('Interaction Mode') as unknown as HTMLSelectElement;
    expect(mode.value).toBe('chat');
    expect(Array.from(mode.options).map((option) => option.text)).toEqual(['Text Completion - Single input/output', 'Chat Conversation - Multi-turn dialogue']);
    expect(screen.getByText(/Affects the frontend app template you download and the API interface/)).toBeTruthy();
    expect(field('Visibility').value).toBe('public');
    expect(field('Price per Call (USD)').value).toBe('1.00');
    expect(field('Price per Call (USD)').min).toBe('0');
  });

  it('offers the one model list, the same as the builder, with the detail ranges', async () => {
    renderDetail();
    await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 });
    openConfig();

    const model = field('Model') as unknown as HTMLSelectElement;
    expect(model.value).toBe('gpt-4-turbo');
    expect(Array.from(model.options).map((option) => option.value)).toEqual(MODEL_TABLE);
    for (const label of ['Frequency Penalty', 'Presence Penalty']) {
      expect([field(label).min, field(label).max, field(label).step]).toEqual(['0', '1', '0.05']);
    }
    expect([field('Temperature').min, field('Temperature').max, field('Temperature').step]).toEqual(['0', '2', '0.1']);
    expect([field('Top P').min, field('Top P').max, field('Top P').step]).toEqual(['0', '1', '0.05']);
    expect([field('Max Tokens').min, field('Max Tokens').max]).toEqual(['1', '8192']);
  });

  it('applies the JSON schema editors only when the text parses, and saves app and prompt', async () => {
    const server = renderDetail();
    await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 });

    change('Application Name', 'Haiku Writer Pro');
    change('Interaction Mode', 'completion');
    change('Price per Call (USD)', 'abc');
    expect(screen.getByText('$0.00 per call')).toBeTruthy();
    openConfig();
    change('Model', 'claude3');
    change('Presence Penalty', '0.5');
    fireEvent.change(await screen.findByLabelText('Prompt Template'), { target: { value: 'Two haiku about {{topic}}' } });

    const valid = { ...inputSchema, properties: { topic: { type: 'string', maxLength: 40 } } };
    change('Input Schema (JSON)', JSON.stringify(valid));
    expect(screen.queryByText('Invalid JSON — not applied')).toBeNull();
    change('Input Schema (JSON)', '{"type": "object", "properties": ');
    expect(screen.getByText('Invalid JSON — not applied')).toBeTruthy();
    expect(field('Input Schema (JSON)').getAttribute('aria-invalid')).toBe('true');
    change('Output Schema (JSON)', '[1, 2');
    expect(screen.getAllByText('Invalid JSON — not applied')).toHaveLength(2);

    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Changes saved')).toBeTruthy();
    // The configuration first: a refused one leaves the Basic Settings unsaved too.
    expect(server.calls().slice(-2)).toEqual(['PATCH /api/app/haiku-writer/prompt/', 'PATCH /api/app/haiku-writer/']);
    expect(server.bodyOf('PATCH /api/app/haiku-writer/')).toEqual({
      name: 'Haiku Writer Pro',
      description: 'Writes haiku',
      visibility: 'public',
      status: 'live',
      price_cents: 0,
      interaction_mode: 'completion',
      caller_tools: true,
    });
    expect(server.bodyOf('PATCH /api/app/haiku-writer/prompt/')).toEqual({
      model: 'claude3',
      key_source: 'platform',
      temperature: 0.7,
      max_tokens: 2048,
      top_p: 1,
      frequency_penalty: 0,
      presence_penalty: 0.5,
      prompt_template: 'Two haiku about {{topic}}',
      // The last valid text is what was applied; the invalid ones were ignored.
      input_schema: valid,
      output_schema: null,
      changelog: 'Updated via UI',
    });
    // The header follows the saved app.
    expect(screen.getByRole('heading', { name: 'Haiku Writer Pro', level: 1 })).toBeTruthy();
  });

  it('lets the creator turn off caller tools and response formats, and saves the switch (issue 26)', async () => {
    const server = renderDetail();
    await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 });
    const toggle = screen.getByRole('checkbox', { name: 'Let callers send tools and response formats' }) as HTMLInputElement;
    expect(toggle.checked).toBe(true);
    expect(toggle.getAttribute('aria-describedby')).toBeTruthy();
    expect(screen.getByText(/callers may pass their own tools/)).toBeTruthy();
    fireEvent.click(toggle);
    expect(toggle.checked).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Changes saved')).toBeTruthy();
    expect(server.bodyOf('PATCH /api/app/haiku-writer/')).toMatchObject({ caller_tools: false });
  });

  it('shows a per-token card read-only with its announced card, and saves without writing price_cents over it (issue 60)', async () => {
    const pricing = perTokenCard({ input_per_mtok_micros: 2_000_000, output_per_mtok_micros: 8_000_000 });
    const server = renderDetail({
      apps: [
        {
          ...app,
          price_cents: 1,
          pricing,
          upcoming_price_cents: 1,
          upcoming_pricing: { ...pricing, output_per_mtok_micros: 9_000_000 },
          upcoming_price_at: '2030-01-08T12:00:00.000Z',
        },
      ],
    });
    await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 });
    expect(screen.queryByLabelText('Price per Call (USD)')).toBeNull();
    const card = screen.getByTestId('rate-card');
    expect(card.textContent).toContain('$2.00 per million input tokens');
    expect(card.textContent).toContain('$8.00 per million output tokens');
    expect(within(card).getByTestId('upcoming-rate-card').textContent).toMatch(/^From .*2030.*\$9\.00 per million output tokens/);
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Changes saved')).toBeTruthy();
    expect(server.bodyOf('PATCH /api/app/haiku-writer/')).not.toHaveProperty('price_cents');
  });

  it('shows the switch off for an app whose callers may not send tools', async () => {
    renderDetail({ apps: [{ ...app, caller_tools: false }] });
    await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 });
    expect((screen.getByRole('checkbox', { name: 'Let callers send tools and response formats' }) as HTMLInputElement).checked).toBe(false);
  });

  it('sets the output schema to null with the text null, and ignores valid JSON that is not an object', async () => {
    const server = renderDetail({ configs: { 'haiku-writer': makePromptConfig({ version: { output_schema: { type: 'object', properties: {} } } }) } });
    await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 });
    openConfig();
    change('Input Schema (JSON)', '42');
    expect(screen.getByText('Must be a JSON object — not applied')).toBeTruthy();
    change('Output Schema (JSON)', 'null');
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Changes saved');
    const body = server.bodyOf('PATCH /api/app/haiku-writer/prompt/');
    expect(body.output_schema).toBeNull();
    expect(body.input_schema.properties).toHaveProperty('query');
  });

  it('Test Prompt shows "Template Valid" with the message, rendered template and variables', async () => {
    const server = renderDetail();
    const result = await runTestPrompt();
    expect(within(result).getByText('Template Valid')).toBeTruthy();
    expect(within(result).getByText('Template rendered successfully')).toBeTruthy();
    expect(within(result).getByTestId('rendered-template').textContent).toBe('A haiku about sample topic');
    expect(within(result).getByRole('list', { name: 'Detected variables' }).textContent).toBe('topic');
    const body = server.bodyOf('POST /api/app/haiku-writer/prompt/test-config/');
    expect(body).toMatchObject({
      prompt_template: 'A haiku about {{topic}}',
      model: 'gpt-4-turbo',
      temperature: 0.7,
      max_tokens: 2048,
      input_schema: inputSchema,
      output_schema: null,
    });
    // Only inputs a real call could send: the schema takes no others (additionalProperties false).
    expect(body.test_inputs).toEqual({ topic: 'sample topic' });
    expect(body.run).toBeUndefined();
  });

  it('saves and tests an emptied model setting as the detail default of the spec', async () => {
    const server = renderDetail();
    await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 });
    openConfig();
    change('Max Tokens', '');
    change('Temperature', '');
    fireEvent.click(screen.getByRole('button', { name: 'Test Prompt' }));
    await screen.findByTestId('test-result');
    expect(server.bodyOf('POST /api/app/haiku-writer/prompt/test-config/')).toMatchObject({ max_tokens: 1000, temperature: 0.7 });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Changes saved');
    expect(server.bodyOf('PATCH /api/app/haiku-writer/prompt/')).toMatchObject({ max_tokens: 1000, temperature: 0.7, top_p: 1, frequency_penalty: 0 });
  });

  it('shows the version history with changelog and a diff against the active version, and rolls back', async () => {
    const server = renderDetail();
    await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 });
    openConfig();
    fireEvent.change(await screen.findByLabelText('Prompt Template'), { target: { value: 'Two haiku about {{topic}}' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Changes saved');

    fireEvent.click(screen.getByRole('tab', { name: 'Version History' }));
    const newest = await screen.findByTestId('prompt-version-2');
    expect(within(newest).getByText('Version 2')).toBeTruthy();
    expect(within(newest).getByText('Active')).toBeTruthy();
    expect(within(newest).getByText('Updated via UI')).toBeTruthy();
    expect((within(newest).getByRole('button', { name: 'Roll back to version 2' }) as HTMLButtonElement).disabled).toBe(true);
    const first = screen.getByTestId('prompt-version-1');
    expect(within(first).getByText('Initial version')).toBeTruthy();
    expect(within(first).getByText(new Date('2024-05-01T10:00:00.000Z').toLocaleString())).toBeTruthy();
    expect(within(first).getByText('Compare with active version 2')).toBeTruthy();
    expect(within(first).getByTestId('diff-1').textContent).toBe('- removed: Two haiku about {{topic}}+ added: A haiku about {{topic}}');

    fireEvent.click(within(first).getByRole('button', { name: 'Roll back to version 1' }));
    await waitFor(() => expect(within(screen.getByTestId('prompt-version-1')).queryByText('Active')).toBeTruthy());
    expect(server.calls()).toContain('POST /api/app/haiku-writer/prompt/versions/1/activate/');
    // The form now shows the restored version.
    openConfig();
    expect((screen.getByLabelText('Prompt Template') as HTMLTextAreaElement).value).toBe('A haiku about {{topic}}');
  });

  it('Test Prompt shows "Template Error" with the error', async () => {
    renderDetail({
      override: (url) =>
        url.pathname.endsWith('/test-config/')
          ? jsonResponse({
              success: false,
              message: 'Template has problems',
              error: 'Unbalanced braces: "{{" at position 3 does not close a {{variable}}',
              rendered_template: 'A {{ haiku',
              detected_variables: [],
            })
          : undefined,
    });
    const result = await runTestPrompt();
    expect(within(result).getByText('Template Error')).toBeTruthy();
    expect(within(result).getByText('Template has problems')).toBeTruthy();
    expect(within(result).getByText(/Unbalanced braces/)).toBeTruthy();
    expect(within(result).getByText('None')).toBeTruthy();
  });

  it('a refused template saves nothing (not the Basic Settings either), and a corrected save clears the Template Error panel', async () => {
    const server = renderDetail({
      override: (url, init) => {
        const body = init?.body ? JSON.parse(String(init.body)) : {};
        if (url.pathname.endsWith('/test-config/') && String(body.prompt_template).includes('{{ haiku')) {
          return jsonResponse({
            success: false,
            message: 'Template has problems',
            error: 'Unbalanced braces',
            rendered_template: 'A {{ haiku',
            detected_variables: [],
          });
        }
        if (url.pathname.endsWith('/prompt/') && init?.method === 'PATCH' && String(body.prompt_template).includes('{{ haiku')) {
          return jsonResponse({ code: 'invalid_param', message: 'prompt_template: Unbalanced braces', status: 400, params: 'prompt_template' }, 400);
        }
        return undefined;
      },
    });
    await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 });
    change('Application Name', 'Renamed');
    openConfig();
    fireEvent.change(await screen.findByLabelText('Prompt Template'), { target: { value: 'A {{ haiku' } });
    fireEvent.click(screen.getByRole('button', { name: 'Test Prompt' }));
    expect(within(await screen.findByTestId('test-result')).getByText('Template Error')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('prompt_template: Unbalanced braces')).toBeTruthy();
    expect(server.calls()).not.toContain('PATCH /api/app/haiku-writer/');

    fireEvent.change(screen.getByLabelText('Prompt Template'), { target: { value: 'A haiku about {{topic}}' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Changes saved')).toBeTruthy();
    expect(server.calls()).toContain('PATCH /api/app/haiku-writer/');
    expect(screen.queryByTestId('test-result')).toBeNull();
  });

  it('shows "Test failed: {reason}" when the call fails', async () => {
    renderDetail({
      override: (url) =>
        url.pathname.endsWith('/test-config/') ? jsonResponse({ code: 'invalid_param', message: 'model: must be a known model', status: 400 }, 400) : undefined,
    });
    await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 });
    openConfig();
    fireEvent.click(screen.getByRole('button', { name: 'Test Prompt' }));
    expect(await screen.findByText('Test failed: model: must be a known model')).toBeTruthy();
  });

  it('shows the server message when saving fails', async () => {
    renderDetail({
      override: (url, init) =>
        url.pathname === '/api/app/haiku-writer/' && init?.method === 'PATCH'
          ? jsonResponse({ code: 'invalid_param', message: 'name: must NOT have fewer than 1 characters', status: 400 }, 400)
          : undefined,
    });
    await screen.findByRole('heading', { name: 'Haiku Writer', level: 1 });
    change('Application Name', '');
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('name: must NOT have fewer than 1 characters'));
  });

  it('shows "Prompt not found" for an unknown slug or a workflow', async () => {
    renderDetail({}, '/prompts/missing');
    expect(await screen.findByText('Prompt not found')).toBeTruthy();
  });

  it('shows "Prompt not found" for a workflow app', async () => {
    renderDetail({ apps: [makeApp({ name: 'Flow', slug: 'flow', type: 'workflow' })] }, '/prompts/flow');
    expect(await screen.findByText('Prompt not found')).toBeTruthy();
  });

  it('shows the error text of other failures', async () => {
    renderDetail({
      override: (url) =>
        url.pathname === '/api/app/haiku-writer/' ? jsonResponse({ code: 'internal', message: 'Database down', status: 500 }, 500) : undefined,
    });
    expect(await screen.findByText('Database down')).toBeTruthy();
  });
});
