import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Route, Routes, useLocation, useParams } from 'react-router';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { makeApp, withTestAccessToken } from '@/testing/fake-apps-server';
import { jsonResponse, renderWithProviders, signedInAuth } from '@/testing/test-utils';
import { fakePromptsServer, makePromptConfig } from '../testing/fake-prompts-server';
import { MODEL_TABLE } from '../testing/model-table';
import { PromptBuilderPage } from './prompt-builder-page';

vi.mock('../components/monaco-prompt-editor', () => import('../testing/mock-monaco-editor'));

// The editor is lazily loaded; loading (and transforming) its module once here keeps that one-time
// cost out of whichever test would otherwise render it first, and inside its own 5 s budget.
beforeAll(async () => {
  await import('../components/monaco-prompt-editor');
});

withTestAccessToken();

function CurrentPath() {
  const location = useLocation();
  return <output data-testid="path">{location.pathname}</output>;
}

function renderBuilder(route = '/prompt-builder') {
  return renderWithProviders(
    <>
      <Routes>
        <Route path="/prompt-builder" element={<PromptBuilderPage mode="create" />} />
        <Route path="/applications/:slug/edit" element={<PromptBuilderPage mode="edit" />} />
        <Route path="*" element={<p>Elsewhere</p>} />
      </Routes>
      <CurrentPath />
    </>,
    { route, auth: signedInAuth() },
  );
}

function WorkflowDetailStub() {
  const { slug } = useParams();
  return <p>Workflow detail of {slug}</p>;
}

function renderWorkflowRedirect() {
  fakePromptsServer({ apps: [makeApp({ name: 'Flow', slug: 'flow', type: 'workflow' })] });
  return renderWithProviders(
    <Routes>
      <Route path="/applications/:slug/edit" element={<PromptBuilderPage mode="edit" />} />
      <Route path="/workflows/:slug" element={<WorkflowDetailStub />} />
    </Routes>,
    { route: '/applications/flow/edit', auth: signedInAuth() },
  );
}

const field = (label: string) => screen.getByLabelText(label) as HTMLInputElement;
const change = (label: string, value: string) => fireEvent.change(field(label), { target: { value } });
const click = (name: string) => fireEvent.click(screen.getByRole('button', { name }));
const openTab = (name: string) => fireEvent.click(screen.getByRole('tab', { name }));
const currentPath = () => screen.getByTestId('path').textContent;
const alertText = () => screen.getByRole('alert').textContent;

async function fillRequired() {
  change('Prompt Name', 'Haiku Writer');
  fireEvent.change(await screen.findByLabelText('System Prompt'), { target: { value: 'You write haiku.' } });
  fireEvent.change(await screen.findByLabelText('User Prompt Template'), { target: { value: 'A haiku about {{topic}}' } });
}

/**
 * The visible tab panel. The builder keeps all four panels mounted (hidden), so queries scoped to
 * the visible one look at a quarter of the form instead of walking every hidden element.
 */
const visiblePanel = () => within(document.querySelector<HTMLElement>('[role="tabpanel"]:not([hidden])') as HTMLElement);

function addInputField(name: string, { type = 'string', required = false } = {}) {
  openTab('Input/Output Schema');
  const panel = visiblePanel();
  fireEvent.click(panel.getByRole('button', { name: 'Add Input Field' }));
  const groups = panel.getAllByRole('group', { name: /^Input field \d+$/ });
  const group = within(groups[groups.length - 1] as HTMLElement);
  fireEvent.change(group.getByLabelText('Name'), { target: { value: name } });
  fireEvent.change(group.getByLabelText('Type'), { target: { value: type } });
  if (required) fireEvent.click(group.getByLabelText('Required'));
  return group;
}

describe('PromptBuilderPage (create)', () => {
  it('shows the four tabs and the spec defaults', async () => {
    fakePromptsServer();
    renderBuilder();

    expect(screen.getByRole('heading', { name: 'Create New Prompt', level: 1 })).toBeTruthy();
    const tabs = screen.getAllByRole('tab').map((tab) => tab.textContent);
    expect(tabs).toEqual(['Basic Info', 'Input/Output Schema', 'Model Settings', 'Preview & Test']);
    expect(screen.getByRole('tab', { name: 'Basic Info' }).getAttribute('aria-selected')).toBe('true');

    expect(field('Status').value).toBe('draft');
    expect(Array.from((field('Status') as unknown as HTMLSelectElement).options).map((option) => option.text)).toEqual(['Draft', 'Live', 'Archived']);
    expect(field('Visibility').value).toBe('private');
    expect(Array.from((field('Visibility') as unknown as HTMLSelectElement).options).map((option) => option.text)).toEqual(['Private', 'Public', 'Embeddable']);
    expect(field('Price per Call (USD)').value).toBe('1.00');
    expect(field('Price per Call (USD)').min).toBe('0.01');
    expect(field('Price per Call (USD)').step).toBe('0.01');
    expect(screen.getByText('$1.00 per call')).toBeTruthy();
    expect(await screen.findByLabelText('System Prompt')).toBeTruthy();
    expect(screen.getByLabelText('User Prompt Template')).toBeTruthy();

    openTab('Model Settings');
    const model = field('Model') as unknown as HTMLSelectElement;
    expect(model.value).toBe('gpt-4-turbo');
    // One list for the builder and the detail page: every name of the model table.
    expect(Array.from(model.options).map((option) => option.text)).toEqual(['gpt-4-turbo (recommended)', ...MODEL_TABLE.slice(1)]);
    expect(field('Temperature').value).toBe('0.7');
    expect([field('Temperature').min, field('Temperature').max, field('Temperature').step]).toEqual(['0', '2', '0.1']);
    expect(screen.getByText('0 deterministic, 2 very creative')).toBeTruthy();
    expect(field('Max Tokens').value).toBe('2048');
    expect([field('Max Tokens').min, field('Max Tokens').max]).toEqual(['1', '8192']);
    expect(field('Top P').value).toBe('1');
    expect([field('Top P').min, field('Top P').max, field('Top P').step]).toEqual(['0', '1', '0.05']);
    expect(field('Frequency Penalty').value).toBe('0');
    expect([field('Frequency Penalty').min, field('Frequency Penalty').max, field('Frequency Penalty').step]).toEqual(['-2', '2', '0.1']);
  });

  it('generates the slug from the name until the slug is edited', () => {
    fakePromptsServer();
    renderBuilder();

    change('Prompt Name', '  My Great -- Prompt!! 2 ');
    expect(field('URL Slug').value).toBe('my-great-prompt-2');
    expect(field('URL Slug').disabled).toBe(false);

    change('URL Slug', 'custom-slug');
    change('Prompt Name', 'Another Name');
    expect(field('URL Slug').value).toBe('custom-slug');
    expect(screen.getByText('Slugs follow the name: this prompt will be saved as another-name.')).toBeTruthy();
  });

  it('validates the name, system prompt and template before calling the API', async () => {
    const server = fakePromptsServer();
    renderBuilder();

    click('Save Draft');
    expect(alertText()).toBe('Prompt name is required');
    change('Prompt Name', 'Haiku Writer');
    click('Save Draft');
    expect(alertText()).toBe('System prompt is required');
    fireEvent.change(await screen.findByLabelText('System Prompt'), { target: { value: '   ' } });
    click('Save Draft');
    expect(alertText()).toBe('System prompt is required');
    fireEvent.change(screen.getByLabelText('System Prompt'), { target: { value: 'You write haiku.' } });
    click('Save Draft');
    expect(alertText()).toBe('User prompt template is required');

    // A problem found from another tab brings the user back to Basic Info.
    openTab('Model Settings');
    click('Save & Publish');
    expect(screen.getByRole('tab', { name: 'Basic Info' }).getAttribute('aria-selected')).toBe('true');
    expect(server.calls()).toEqual([]);
    // Filling the field takes the banner away at once, without another save.
    fireEvent.change(screen.getByLabelText('User Prompt Template'), { target: { value: 'A haiku about {{topic}}' } });
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('Save & Publish creates the app, sets it live, saves the prompt configuration and goes to /applications', async () => {
    const server = fakePromptsServer();
    renderBuilder();

    await fillRequired();
    change('Description', 'Writes haiku');
    change('Visibility', 'public');
    change('Price per Call (USD)', '2.675');
    expect(screen.getByText('$2.68 per call')).toBeTruthy();
    addInputField('topic', { required: true });
    openTab('Model Settings');
    change('Temperature', '1.2');
    change('Max Tokens', '512');
    // Bring your own key: the app's calls go to the creator's own provider key.
    change('Model key', 'own');

    click('Save & Publish');
    await waitFor(() => expect(currentPath()).toBe('/applications'));

    // Published only once its configuration is saved.
    expect(server.calls()).toEqual(['POST /api/app/', 'PATCH /api/app/haiku-writer/prompt/', 'PATCH /api/app/haiku-writer/']);
    expect(server.bodyOf('POST /api/app/')).toEqual({
      name: 'Haiku Writer',
      description: 'Writes haiku',
      type: 'prompt',
      interaction_mode: 'completion',
      visibility: 'public',
      price_cents: 268,
    });
    expect(server.bodyOf('PATCH /api/app/haiku-writer/')).toEqual({ status: 'live' });
    expect(server.bodyOf('PATCH /api/app/haiku-writer/prompt/')).toEqual({
      model: 'gpt-4-turbo',
      key_source: 'own',
      temperature: 1.2,
      max_tokens: 512,
      top_p: 1,
      frequency_penalty: 0,
      presence_penalty: 0,
      system_prompt: 'You write haiku.',
      prompt_template: 'A haiku about {{topic}}',
      input_schema: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'], additionalProperties: false },
      output_schema: null,
      changelog: 'Updated via UI',
    });
  });

  it('Save Draft keeps the draft status and hides Save & Publish for other statuses', async () => {
    const server = fakePromptsServer();
    renderBuilder();
    await fillRequired();
    change('Status', 'archived');
    expect(screen.queryByRole('button', { name: 'Save & Publish' })).toBeNull();
    change('Status', 'draft');
    change('Price per Call (USD)', '0.1');

    click('Save Draft');
    await waitFor(() => expect(currentPath()).toBe('/applications'));
    expect(server.calls()).toEqual(['POST /api/app/', 'PATCH /api/app/haiku-writer/prompt/']);
    expect(server.bodyOf('POST /api/app/').price_cents).toBe(10);
  });

  it("shows the server's error and saves nothing when the configuration is refused (all or nothing)", async () => {
    let failConfig = true;
    const server = fakePromptsServer({
      override: (url, init) => {
        if (failConfig && url.pathname.endsWith('/prompt/') && init?.method === 'PATCH') {
          failConfig = false;
          return jsonResponse({ code: 'invalid_param', message: 'temperature: must be <= 2', status: 400 }, 400);
        }
        return undefined;
      },
    });
    renderBuilder();
    await fillRequired();

    click('Save Draft');
    await waitFor(() => expect(alertText()).toBe('temperature: must be <= 2'));
    // The app created for the configuration is deleted again: no half-saved app is left, the slug stays editable.
    expect(server.calls()).toEqual(['POST /api/app/', 'PATCH /api/app/haiku-writer/prompt/', 'DELETE /api/app/haiku-writer/']);
    expect(field('URL Slug').disabled).toBe(false);

    click('Save Draft');
    await waitFor(() => expect(currentPath()).toBe('/applications'));
    expect(server.calls().filter((call) => call === 'POST /api/app/')).toHaveLength(2);
    expect(server.calls().at(-1)).toBe('PATCH /api/app/haiku-writer/prompt/');
  });

  it('falls back to the generic message when the request fails without an answer', async () => {
    fakePromptsServer({
      override: (url) => {
        if (url.pathname === '/api/app/') throw new TypeError('Failed to fetch');
        return undefined;
      },
    });
    renderBuilder();
    await fillRequired();
    click('Save Draft');
    await waitFor(() => expect(alertText()).toBe('An error occurred while saving the prompt'));
  });

  it('builds the input schema from the field builder options', async () => {
    const server = fakePromptsServer();
    renderBuilder();
    await fillRequired();

    const topic = addInputField('topic', { required: true });
    fireEvent.change(topic.getByLabelText('Description'), { target: { value: 'What the haiku is about' } });
    fireEvent.change(topic.getByLabelText('Allowed values'), { target: { value: '  owls \n\n  rain  \n' } });
    fireEvent.change(topic.getByLabelText('Min length'), { target: { value: '2' } });
    fireEvent.change(topic.getByLabelText('Max length'), { target: { value: '' } });
    fireEvent.change(topic.getByLabelText('Regex pattern'), { target: { value: '^[a-z]+$' } });

    const count = addInputField('count', { type: 'integer' });
    fireEvent.change(count.getByLabelText('Minimum'), { target: { value: '1' } });
    fireEvent.change(count.getByLabelText('Maximum'), { target: { value: '' } });
    fireEvent.change(count.getByLabelText('Default'), { target: { value: '3' } });

    const formal = addInputField('formal', { type: 'boolean' });
    expect(Array.from((formal.getByLabelText('Default') as HTMLSelectElement).options).map((option) => option.text)).toEqual(['None', 'true', 'false']);

    const tags = addInputField('tags', { type: 'array' });
    fireEvent.change(tags.getByLabelText('Items type'), { target: { value: 'number' } });
    fireEvent.change(tags.getByLabelText('Items description'), { target: { value: 'Scores' } });

    const removed = addInputField('gone');
    fireEvent.click(removed.getByRole('button', { name: 'Remove field' }));

    click('Save Draft');
    await waitFor(() => expect(currentPath()).toBe('/applications'));
    expect(server.bodyOf('PATCH /api/app/haiku-writer/prompt/').input_schema).toEqual({
      type: 'object',
      properties: {
        topic: { type: 'string', description: 'What the haiku is about', enum: ['owls', 'rain'], minLength: 2, pattern: '^[a-z]+$' },
        count: { type: 'integer', default: 3, minimum: 1 },
        formal: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'number', description: 'Scores' } },
      },
      required: ['topic'],
      additionalProperties: false,
    });
  });

  it('adds an output schema only when enabled', async () => {
    const server = fakePromptsServer();
    renderBuilder();
    await fillRequired();
    openTab('Input/Output Schema');
    fireEvent.click(screen.getByLabelText('Answer with JSON matching an output schema'));
    const group = within(screen.getByRole('group', { name: 'Output field 1' }));
    fireEvent.change(group.getByLabelText('Name'), { target: { value: 'haiku' } });
    fireEvent.click(group.getByLabelText('Required'));

    click('Save Draft');
    await waitFor(() => expect(currentPath()).toBe('/applications'));
    expect(server.bodyOf('PATCH /api/app/haiku-writer/prompt/').output_schema).toEqual({
      type: 'object',
      properties: { haiku: { type: 'string' } },
      required: ['haiku'],
      additionalProperties: false,
    });
  });

  it('Preview & Test tests the unsaved draft and never saves it', async () => {
    const server = fakePromptsServer();
    renderBuilder();
    await fillRequired();
    change('Status', 'live');
    addInputField('topic', { required: true });
    openTab('Preview & Test');

    expect(screen.getByText(/nothing is saved/)).toBeTruthy();
    fireEvent.change(screen.getByLabelText('topic'), { target: { value: 'owls' } });
    click('Test Prompt');

    const result = await screen.findByTestId('test-result');
    expect(within(result).getByText('Template Valid')).toBeTruthy();
    expect(within(result).getByTestId('rendered-template').textContent).toBe('A haiku about owls');
    expect(within(result).getByRole('list', { name: 'Detected variables' }).textContent).toBe('topic');
    expect(within(result).getByTestId('model-answer').textContent).toBe('Demo answer to: A haiku about owls');
    expect(within(result).getByTestId('token-usage').textContent).toBe('Token usage: 12 input, 34 output');

    // Only the test call: no application created, no configuration saved.
    expect(server.calls()).toEqual(['POST /api/prompt/test-config/']);
    expect(server.bodyOf('POST /api/prompt/test-config/')).toEqual({
      prompt_template: 'A haiku about {{topic}}',
      system_prompt: 'You write haiku.',
      model: 'gpt-4-turbo',
      key_source: 'platform',
      temperature: 0.7,
      max_tokens: 2048,
      top_p: 1,
      frequency_penalty: 0,
      presence_penalty: 0,
      input_schema: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'], additionalProperties: false },
      output_schema: null,
      test_inputs: { topic: 'owls' },
      run: true,
    });

    // Save then creates the app once, with its status.
    click('Save Draft');
    await waitFor(() => expect(currentPath()).toBe('/applications'));
    expect(server.calls().filter((call) => call === 'POST /api/app/')).toHaveLength(1);
    expect(server.bodyOf('PATCH /api/app/haiku-writer/')).toMatchObject({ status: 'live' });
  });

  it('declares a template variable no field declares as a required text input: the schema tab, the test and the curl example agree', async () => {
    const server = fakePromptsServer();
    renderBuilder();
    await fillRequired();
    openTab('Input/Output Schema');
    expect(screen.getByTestId('auto-declared-inputs').textContent).toContain('{{topic}} is in the template but not declared above');
    openTab('Preview & Test');
    expect(screen.getByText('Required text input, declared automatically from the template')).toBeTruthy();
    expect(document.body.textContent).toContain(`-d '{"topic":"sample topic"}'`);
    fireEvent.change(screen.getByLabelText('topic'), { target: { value: 'owls' } });
    click('Test Prompt');
    await screen.findByTestId('test-result');
    expect(server.bodyOf('POST /api/prompt/test-config/').input_schema).toEqual({
      type: 'object',
      properties: { topic: { type: 'string', description: 'Declared automatically from the template', maxLength: 2000 } },
      required: ['topic'],
      additionalProperties: false,
    });
    expect(document.body.textContent).toContain(`-d '{"topic":"owls"}'`);
  });

  it('Test Prompt with blank inputs uses the schema default, then an empty value, and says Template Valid', async () => {
    const server = fakePromptsServer();
    renderBuilder();
    await fillRequired();
    fireEvent.change(await screen.findByLabelText('User Prompt Template'), { target: { value: 'A haiku about {{topic}} for {{reader}}' } });
    const topic = addInputField('topic');
    fireEvent.change(topic.getByLabelText('Default'), { target: { value: 'owls' } });
    openTab('Preview & Test');
    click('Test Prompt');

    const result = await screen.findByTestId('test-result');
    expect(within(result).getByText('Template Valid')).toBeTruthy();
    expect(within(result).getByTestId('rendered-template').textContent).toBe('A haiku about owls for ');
    expect(server.bodyOf('POST /api/prompt/test-config/')).toMatchObject({ test_inputs: {}, input_schema: { properties: { topic: { default: 'owls' } } } });
  });

  it('shows "Test failed: {reason}" when the test call fails', async () => {
    fakePromptsServer({
      apps: [makeApp({ name: 'Haiku Writer', slug: 'haiku-writer' })],
      override: (url) =>
        url.pathname.endsWith('/test-config/') ? jsonResponse({ code: 'provider_error', message: 'The model provider failed', status: 502 }, 502) : undefined,
    });
    renderBuilder('/applications/haiku-writer/edit');
    fireEvent.click(await screen.findByRole('tab', { name: 'Preview & Test' }));
    click('Test Prompt');
    expect(await screen.findByText('Test failed: The model provider failed')).toBeTruthy();
  });

  it('shows a curl example of the invoke endpoint with the sample input fields', async () => {
    fakePromptsServer();
    renderBuilder();
    await fillRequired();
    addInputField('topic', { required: true });
    const count = addInputField('count', { type: 'integer' });
    fireEvent.change(count.getByLabelText('Minimum'), { target: { value: '3' } });
    openTab('Preview & Test');
    fireEvent.change(screen.getByLabelText('topic'), { target: { value: "owls' night" } });

    const origin = window.location.origin;
    expect(screen.getByTestId('curl-example').textContent).toBe(
      [
        `curl -X POST ${origin}/v1/invoke/haiku-writer`,
        '  -H "Authorization: Bearer YOUR_API_KEY"',
        '  -H "Content-Type: application/json"',
        `  -d '{"topic":"owls'\\'' night","count":3}'`,
      ].join(' \\\n'),
    );
    expect(screen.getByRole('link', { name: 'Create an API key on your profile' }).getAttribute('href')).toBe('/profile');
    expect(screen.getByText('The endpoint answers once the prompt is saved.')).toBeTruthy();

    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    click('Copy');
    await screen.findByRole('button', { name: 'Copied!' });
    expect(writeText).toHaveBeenCalledWith(screen.getByTestId('curl-example').textContent);
  });
});

describe('PromptBuilderPage (edit)', () => {
  const app = makeApp({ name: 'Haiku Writer', slug: 'haiku-writer', description: 'Writes haiku', status: 'live', visibility: 'embed', price_cents: 250 });
  const config = makePromptConfig({
    model: 'claude-3-haiku',
    temperature: 0.3,
    max_tokens: 400,
    top_p: 0.9,
    frequency_penalty: -0.5,
    presence_penalty: 0.4,
    version: {
      version: 3,
      system_prompt: 'You write haiku.',
      prompt_template: 'A haiku about {{topic}}',
      input_schema: {
        type: 'object',
        properties: { topic: { type: 'string', description: 'Subject', enum: ['owls', 'rain'], maxLength: 20 } },
        required: ['topic'],
        additionalProperties: false,
      },
      output_schema: null,
    },
  });

  it('loads the app and its configuration, locks the slug and updates both on Update Prompt', async () => {
    const server = fakePromptsServer({ apps: [{ ...app }], configs: { 'haiku-writer': config } });
    renderBuilder('/applications/haiku-writer/edit');

    expect(screen.getByText('Loading prompt...')).toBeTruthy();
    expect(await screen.findByRole('heading', { name: 'Edit: Haiku Writer', level: 1 })).toBeTruthy();
    expect(field('Prompt Name').value).toBe('Haiku Writer');
    expect(field('URL Slug').value).toBe('haiku-writer');
    expect(field('URL Slug').disabled).toBe(true);
    expect(screen.getByText('Cannot be changed after creation')).toBeTruthy();
    expect(field('Status').value).toBe('live');
    expect(field('Visibility').value).toBe('embed');
    expect(field('Price per Call (USD)').value).toBe('2.50');
    expect(((await screen.findByLabelText('User Prompt Template')) as HTMLTextAreaElement).value).toBe('A haiku about {{topic}}');
    // Save & Publish is only offered for drafts.
    expect(screen.queryByRole('button', { name: 'Save & Publish' })).toBeNull();

    openTab('Input/Output Schema');
    const topic = within(screen.getByRole('group', { name: 'Input field 1' }));
    expect((topic.getByLabelText('Name') as HTMLInputElement).value).toBe('topic');
    expect((topic.getByLabelText('Allowed values') as HTMLTextAreaElement).value).toBe('owls\nrain');
    expect((topic.getByLabelText('Required') as HTMLInputElement).checked).toBe(true);

    change('Prompt Name', 'Haiku Writer Pro');
    expect(field('URL Slug').value).toBe('haiku-writer');
    click('Update Prompt');
    await waitFor(() => expect(currentPath()).toBe('/applications'));
    expect(server.calls().slice(-2)).toEqual(['PATCH /api/app/haiku-writer/prompt/', 'PATCH /api/app/haiku-writer/']);
    expect(server.bodyOf('PATCH /api/app/haiku-writer/')).toEqual({
      name: 'Haiku Writer Pro',
      description: 'Writes haiku',
      visibility: 'embed',
      status: 'live',
      price_cents: 250,
    });
    expect(server.bodyOf('PATCH /api/app/haiku-writer/prompt/')).toEqual({
      model: 'claude-3-haiku',
      key_source: 'platform',
      temperature: 0.3,
      max_tokens: 400,
      top_p: 0.9,
      frequency_penalty: -0.5,
      presence_penalty: 0.4,
      system_prompt: 'You write haiku.',
      prompt_template: 'A haiku about {{topic}}',
      input_schema: config.active_version.input_schema,
      output_schema: null,
      changelog: 'Updated via UI',
    });
  });

  it('shows a model named on the detail page as chosen', async () => {
    fakePromptsServer({ apps: [{ ...app }], configs: { 'haiku-writer': makePromptConfig({ model: 'mixtral' }) } });
    renderBuilder('/applications/haiku-writer/edit');
    await screen.findByRole('heading', { name: 'Edit: Haiku Writer', level: 1 });
    openTab('Model Settings');
    const model = field('Model') as unknown as HTMLSelectElement;
    expect(model.value).toBe('mixtral');
    expect(Array.from(model.options).map((option) => option.value)).toContain('gpt-4-turbo');
  });

  it('shows "Failed to load prompt data" with a way back when the app does not exist', async () => {
    fakePromptsServer({ apps: [makeApp({ name: 'Flow', slug: 'flow', type: 'workflow' })] });
    renderBuilder('/applications/missing/edit');
    expect(await screen.findByText('Failed to load prompt data')).toBeTruthy();
    expect(screen.getByText('There is no prompt application named “missing” in your account.')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to Applications' }).getAttribute('href')).toBe('/applications');
  });

  it('sends a workflow app to its own detail page', async () => {
    renderWorkflowRedirect();
    expect(await screen.findByText('Workflow detail of flow')).toBeTruthy();
  });
});
