import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { type ReactNode, useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { AuthContext, type AuthContextValue } from '@/lib/auth/auth-context';
import { makeApp, withTestAccessToken } from '@/testing/fake-apps-server';
import { makeCatalogAppDetail } from '@/testing/fake-catalog';
import { perTokenCard } from '@/testing/rate-cards';
import { fakeAuth, jsonResponse, renderWithProviders, signedInAuth } from '@/testing/test-utils';
import { API_KEY_REQUIRED } from '../lib/console-messages';
import { FAKE_CREATED_AT, FAKE_USAGE, fakeGatewayServer, sseResponse } from '../testing/fake-gateway-server';
import { ApiTestPage } from './api-test-page';

withTestAccessToken();

const haiku = () => makeApp({ name: 'Haiku Writer', slug: 'haiku-writer', type: 'prompt', status: 'live', visibility: 'public', price_cents: 100 });
const haikuChat = () =>
  makeApp({ name: 'Haiku Chat', slug: 'haiku-chat', type: 'prompt', status: 'live', visibility: 'public', price_cents: 100, interaction_mode: 'chat' });
const flow = () => makeApp({ name: 'Support Flow', slug: 'support-flow', type: 'workflow', status: 'draft', price_cents: 250, call_mode: 'chat' });

function renderConsole({ route = '/api-test', signedIn = true } = {}) {
  return renderWithProviders(<ApiTestPage />, { route, auth: signedIn ? signedInAuth() : fakeAuth() });
}

const completionSection = () => screen.getByRole('region', { name: 'Test Completion API' });
const chatSection = () => screen.getByRole('region', { name: 'Test Chat API' });

async function testCompletion(text: string) {
  fireEvent.change(within(completionSection()).getByLabelText('Input Text'), { target: { value: text } });
  fireEvent.click(within(completionSection()).getByRole('button', { name: 'Test Completion' }));
}

async function testChat(query: string) {
  fireEvent.change(within(chatSection()).getByLabelText('Chat Query'), { target: { value: query } });
  fireEvent.click(within(chatSection()).getByRole('button', { name: 'Test Chat' }));
}

describe('ApiTestPage', () => {
  it('shows anonymous visitors the notice, the slug and API key inputs, and no app dropdown', async () => {
    fakeGatewayServer({ apps: [haiku()] });
    renderConsole({ route: '/api-test?app=haiku-writer', signedIn: false });

    expect(screen.getByRole('heading', { name: 'API Test Console', level: 1 })).toBeTruthy();
    expect(screen.getByText('Authentication Required')).toBeTruthy();
    expect(screen.getByText('Please log in to access your applications and test APIs.')).toBeTruthy();
    expect(screen.queryByLabelText('Application')).toBeNull();
    expect((screen.getByLabelText('App Slug') as HTMLInputElement).value).toBe('haiku-writer');
    expect((screen.getByLabelText('API Key') as HTMLInputElement).type).toBe('password');
    expect(await screen.findByRole('heading', { name: 'Application Details' })).toBeTruthy();
  });

  it('lists the signed-in user’s apps and shows the chosen one’s details', async () => {
    const server = fakeGatewayServer({ apps: [haiku(), flow()] });
    renderConsole();

    expect(screen.queryByText('Authentication Required')).toBeNull();
    const dropdown = screen.getByLabelText('Application') as HTMLSelectElement;
    await screen.findByRole('option', { name: 'Haiku Writer (prompt)' });
    expect(Array.from(dropdown.options).map((option) => option.text)).toEqual(['Select an application...', 'Haiku Writer (prompt)', 'Support Flow (workflow)']);

    fireEvent.change(dropdown, { target: { value: 'haiku-writer' } });
    expect((screen.getByLabelText('App Slug') as HTMLInputElement).value).toBe('haiku-writer');
    const details = await screen.findByRole('region', { name: 'Application Details' });
    expect(details.textContent).toContain('Haiku Writer');
    expect(details.textContent).toContain('live');
    expect(details.textContent).toContain('$1.00 per call');
    expect(within(details).getByText('/api/app/haiku-writer/completion-messages')).toBeTruthy();

    fireEvent.change(dropdown, { target: { value: 'support-flow' } });
    await waitFor(() =>
      expect(within(screen.getByRole('region', { name: 'Application Details' })).getByText('/api/app/support-flow/chat-messages')).toBeTruthy(),
    );
    expect(screen.getByRole('region', { name: 'Application Details' }).textContent).toContain('$2.50 per call');
    expect(server.calls()).toContain('GET /api/app/');
  });

  it('waits for the sign-in state before loading the app, so an owner’s private app is not cached as not found', async () => {
    const server = fakeGatewayServer({ apps: [haiku()] });
    let signIn: () => void = () => {};
    function SwitchableAuth({ children }: { children: ReactNode }) {
      const [auth, setAuth] = useState<AuthContextValue>(() => fakeAuth({ status: 'loading' }));
      signIn = () => setAuth(signedInAuth());
      return <AuthContext.Provider value={auth}>{children}</AuthContext.Provider>;
    }
    renderWithProviders(
      <SwitchableAuth>
        <ApiTestPage />
      </SwitchableAuth>,
      { route: '/api-test?app=haiku-writer' },
    );
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(server.calls()).not.toContain('GET /api/app/haiku-writer/');
    expect(screen.queryByText('Authentication Required')).toBeNull();

    act(() => signIn());
    expect(await screen.findByRole('region', { name: 'Application Details' })).toBeTruthy();
    expect(server.calls()).toContain('GET /api/app/haiku-writer/');
  });

  it('only logs a failure to load the application list', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    fakeGatewayServer({ apps: [] }).fetchMock.mockImplementation(async () => jsonResponse({ code: 'internal', message: 'Boom', status: 500 }, 500));
    renderConsole();

    await waitFor(() => expect(error).toHaveBeenCalledWith('Failed to load applications', expect.anything()));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByLabelText('Application')).toBeTruthy();
  });

  it('disables the buttons until slug and text are given, and validates blank text', async () => {
    fakeGatewayServer({ apps: [haiku()] });
    renderConsole();
    const completionButton = within(completionSection()).getByRole('button', { name: 'Test Completion' }) as HTMLButtonElement;
    const chatButton = within(chatSection()).getByRole('button', { name: 'Test Chat' }) as HTMLButtonElement;

    fireEvent.change(within(completionSection()).getByLabelText('Input Text'), { target: { value: 'Hello' } });
    fireEvent.change(within(chatSection()).getByLabelText('Chat Query'), { target: { value: 'Hi' } });
    expect(completionButton.disabled).toBe(true);
    expect(chatButton.disabled).toBe(true);

    fireEvent.change(screen.getByLabelText('App Slug'), { target: { value: 'haiku-writer' } });
    expect(completionButton.disabled).toBe(false);
    expect(chatButton.disabled).toBe(false);

    fireEvent.change(within(completionSection()).getByLabelText('Input Text'), { target: { value: '' } });
    expect(completionButton.disabled).toBe(true);

    fireEvent.change(within(completionSection()).getByLabelText('Input Text'), { target: { value: '   ' } });
    fireEvent.click(completionButton);
    expect(within(completionSection()).getByRole('alert').textContent).toBe('Please provide app slug and input');

    fireEvent.change(within(chatSection()).getByLabelText('Chat Query'), { target: { value: '  ' } });
    fireEvent.click(chatButton);
    expect(within(chatSection()).getByRole('alert').textContent).toBe('Please provide app slug and chat query');
  });

  it('runs a completion with the session token and shows the response', async () => {
    const server = fakeGatewayServer({ apps: [haiku()] });
    renderConsole({ route: '/api-test?app=haiku-writer' });

    await testCompletion('Write about owls');
    expect(within(completionSection()).getByRole('button', { name: 'Testing...' })).toBeTruthy();
    expect((within(completionSection()).getByRole('button', { name: 'Testing...' }) as HTMLButtonElement).disabled).toBe(true);

    const result = await within(completionSection()).findByText('Response Received');
    const box = result.parentElement as HTMLElement;
    expect(within(box).getByTestId('result-answer').textContent).toBe('You said: Write about owls');
    expect(within(box).getByTestId('result-id').textContent).toBe('msg-1');
    expect(within(box).getByTestId('result-created').textContent).toBe(new Date(FAKE_CREATED_AT * 1000).toLocaleString());
    expect(within(box).getByText('Input Tokens')).toBeTruthy();
    expect(within(box).getByTestId('result-input-tokens').textContent).toBe('12');
    expect(within(box).getByTestId('result-output-tokens').textContent).toBe('34');
    expect(within(box).queryByText('Conversation ID')).toBeNull();
    expect(within(completionSection()).getByRole('button', { name: 'Test Completion' })).toBeTruthy();

    expect(server.gatewayCalls).toEqual([
      {
        slug: 'haiku-writer',
        action: 'completion-messages',
        body: { inputs: { query: 'Write about owls' }, response_mode: 'blocking' },
        authorization: 'Bearer test-token',
      },
    ]);
  });

  it('shows a per-token app’s rate card, and after a call its exact amount and tokens (issue 60)', async () => {
    const card = perTokenCard({ minimum_micros: 1_000 });
    const poet = makeApp({
      name: 'Token Poet',
      slug: 'token-poet',
      type: 'prompt',
      status: 'live',
      visibility: 'public',
      price_cents: 1,
      pricing: { ...card, input_per_mtok_micros: 2_000_000, output_per_mtok_micros: 8_000_000 },
      upcoming_price_cents: 1,
      upcoming_price_at: '2030-01-01T00:00:00.000Z',
      upcoming_pricing: { ...card, input_per_mtok_micros: 3_000_000, output_per_mtok_micros: 12_000_000 },
    });
    fakeGatewayServer({
      apps: [poet],
      answerCall: () =>
        jsonResponse({
          event: 'message',
          task_id: 'task-1',
          id: 'msg-1',
          message_id: 'msg-1',
          conversation_id: '',
          mode: 'completion',
          answer: 'Owls at dusk',
          metadata: { usage: { ...FAKE_USAGE, input_tokens: 1200, output_tokens: 340, total_price: '0.0051200', currency: 'USD' } },
          created_at: FAKE_CREATED_AT,
        }),
    });
    renderConsole({ route: '/api-test?app=token-poet' });

    const details = await screen.findByRole('region', { name: 'Application Details' });
    await waitFor(() => expect(within(details).getByTestId('console-price')).toBeTruthy());
    expect(within(details).getByTestId('console-price').textContent).toBe(
      '$2.00 per million input tokens\n$8.00 per million output tokens\nminimum $0.001 per call',
    );
    expect(details.textContent).toContain(`From ${new Date('2030-01-01T00:00:00.000Z').toLocaleDateString()} (announced increase):`);
    expect(details.textContent).toContain('$3.00 per million input tokens');

    await testCompletion('Write about owls');
    const box = (await within(completionSection()).findByText('Response Received')).parentElement as HTMLElement;
    // 1,200 × $2 + 340 × $8 per million tokens: $0.00512, not a rounded cent.
    expect(within(box).getByTestId('result-charged').textContent).toBe("Charged: $0.00512, the app's price, from your credits.");
    expect(within(box).getByTestId('result-input-tokens').textContent).toBe('1200');
    expect(within(box).getByTestId('result-output-tokens').textContent).toBe('340');
  });

  it('renders the other fields of the owner’s input schema and sends them all', async () => {
    const server = fakeGatewayServer({
      apps: [haiku()],
      inputSchemas: {
        'haiku-writer': {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'The request' },
            topic: { type: 'string', description: 'What the haiku is about' },
            lines: { type: 'integer' },
          },
          required: ['query', 'topic'],
          additionalProperties: false,
        },
      },
    });
    renderConsole({ route: '/api-test?app=haiku-writer' });

    fireEvent.change(await screen.findByLabelText(/^topic/), { target: { value: 'owls' } });
    fireEvent.change(screen.getByLabelText('lines'), { target: { value: '3' } });
    expect(screen.getByText('What the haiku is about')).toBeTruthy();
    await testCompletion('Write one');
    await within(completionSection()).findByText('Response Received');

    expect(server.gatewayCalls[0]?.body).toEqual({ inputs: { topic: 'owls', lines: 3, query: 'Write one' }, response_mode: 'blocking' });
  });

  it('shows how an OpenAI client fills every input of the app, with the typed values, ready to copy (issue 61)', async () => {
    fakeGatewayServer({
      apps: [haiku()],
      inputSchemas: {
        'haiku-writer': {
          type: 'object',
          properties: { query: { type: 'string' }, topic: { type: 'string' }, lines: { type: 'integer' } },
          required: ['query', 'topic', 'lines'],
          additionalProperties: false,
        },
      },
    });
    renderConsole({ route: '/api-test?app=haiku-writer' });
    fireEvent.change(await screen.findByLabelText(/^topic/), { target: { value: 'owls' } });
    const example = await screen.findByTestId('console-openai-example');
    expect(example.textContent).toContain("model: 'haiku-writer'");
    expect(example.textContent).toContain("metadata: { topic: 'owls', lines: '1' }");
    expect(screen.getByText(/The last user message fills \{\{query\}\}; the other inputs go in metadata/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Copy OpenAI example' })).toBeTruthy();
  });

  it('continues a chat in the same conversation until it is reset', async () => {
    const server = fakeGatewayServer({ apps: [haikuChat()] });
    renderConsole({ route: '/api-test?app=haiku-chat' });
    await screen.findByRole('heading', { name: 'Application Details' });

    await testChat('Hello');
    expect(await within(chatSection()).findByText('Response Received')).toBeTruthy();
    expect(within(chatSection()).getByTestId('result-conversation-id').textContent).toBe('conv-1');
    expect(within(chatSection()).getByText('Conversation ID')).toBeTruthy();
    expect(within(chatSection()).getByTestId('current-conversation-id').textContent).toBe('conv-1');

    await testChat('And again');
    await waitFor(() => expect(within(chatSection()).getByTestId('result-answer').textContent).toBe('You said: And again'));
    expect(server.gatewayCalls.map((call) => call.body)).toEqual([
      { query: 'Hello', response_mode: 'blocking' },
      { query: 'And again', conversation_id: 'conv-1', response_mode: 'blocking' },
    ]);

    fireEvent.click(within(chatSection()).getByRole('button', { name: 'Reset Conversation' }));
    expect(within(chatSection()).queryByTestId('current-conversation-id')).toBeNull();
    await testChat('Fresh start');
    await waitFor(() => expect(within(chatSection()).getByTestId('result-conversation-id').textContent).toBe('conv-2'));
    expect(server.gatewayCalls[2]?.body).toEqual({ query: 'Fresh start', response_mode: 'blocking' });
  });

  it('streams the answer and assembles the chunks', async () => {
    const server = fakeGatewayServer({ apps: [haiku(), haikuChat()] });
    renderConsole({ route: '/api-test?app=haiku-writer' });

    fireEvent.click(screen.getByLabelText('Stream response'));
    await testCompletion('stream me please');
    await within(completionSection()).findByText('Response Received');
    expect(within(completionSection()).getByTestId('result-answer').textContent).toBe('You said: stream me please');
    expect(within(completionSection()).getByTestId('result-id').textContent).toBe('msg-1');
    expect(within(completionSection()).getByTestId('result-input-tokens').textContent).toBe('12');
    expect(within(completionSection()).getByTestId('result-output-tokens').textContent).toBe('34');
    expect(server.gatewayCalls[0]?.body.response_mode).toBe('streaming');

    fireEvent.change(screen.getByLabelText('Application'), { target: { value: 'haiku-chat' } });
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Test Completion API' })).toBeNull());
    await testChat('chat stream');
    await within(chatSection()).findByText('Response Received');
    expect(within(chatSection()).getByTestId('result-answer').textContent).toBe('You said: chat stream');
    expect(within(chatSection()).getByTestId('result-conversation-id').textContent).toBe('conv-1');
  });

  it('shows the answer while it streams in', async () => {
    let finish: (() => void) | undefined;
    fakeGatewayServer({
      apps: [haiku()],
      answerCall: () => {
        const encoder = new TextEncoder();
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encoder.encode('data: {"event":"message","answer":"Partial ","created_at":1}\n\nevent: ping\n\n'));
            finish = () => {
              controller.enqueue(encoder.encode('data: {"event":"message","answer":"answer"}\n\n'));
              controller.enqueue(
                encoder.encode(
                  'data: {"event":"message_end","id":"m-1","message_id":"m-1","conversation_id":"","metadata":{"usage":{"input_tokens":1,"output_tokens":2}}}\n\n',
                ),
              );
              controller.close();
            };
          },
        });
        return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
      },
    });
    renderConsole({ route: '/api-test?app=haiku-writer' });

    fireEvent.click(screen.getByLabelText('Stream response'));
    await testCompletion('go');
    await waitFor(() => expect(screen.getByTestId('streaming-answer').textContent).toBe('Partial '));
    finish?.();
    await within(completionSection()).findByText('Response Received');
    expect(within(completionSection()).getByTestId('result-answer').textContent).toBe('Partial answer');
    expect(screen.queryByTestId('streaming-answer')).toBeNull();
  });

  it('calls with a pasted API key when there is one, even for anonymous visitors', async () => {
    const server = fakeGatewayServer({ apps: [haiku()] });
    renderConsole({ signedIn: false });

    fireEvent.change(screen.getByLabelText('App Slug'), { target: { value: 'haiku-writer' } });
    fireEvent.change(screen.getByLabelText('API Key'), { target: { value: ' tb_secretKey123 ' } });
    await testCompletion('Paid call');
    await within(completionSection()).findByText('Response Received');

    expect(server.gatewayCalls[0]?.authorization).toBe('Bearer tb_secretKey123');
  });

  it('explains failures with the spec’s texts', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    fakeGatewayServer({
      apps: [haiku()],
      answerCall: (call) =>
        call.body.response_mode === 'streaming'
          ? sseResponse([
              'data: {"event":"message","answer":"Hal"}\n\n',
              'data: {"event":"error","code":"provider_error","message":"The model provider failed","status":502}\n\n',
            ])
          : jsonResponse({ code: 'insufficient_credits', message: 'Insufficient credits: this call costs $1.00', status: 402 }, 402),
    });
    renderConsole({ route: '/api-test?app=haiku-writer' });
    await screen.findByRole('heading', { name: 'Application Details' });

    await testCompletion('No money');
    const outOfCredit = await within(completionSection()).findByRole('alert');
    expect(outOfCredit.textContent).toBe('Completion test failed: Insufficient credits: this call costs $1.00Add credits on the Money page');
    // One click from the error to where credits are added.
    expect(within(outOfCredit).getByRole('link', { name: 'Add credits on the Money page' }).getAttribute('href')).toBe('/money');

    fireEvent.click(screen.getByLabelText('Stream response'));
    await testCompletion('Break');
    expect((await within(completionSection()).findByRole('alert')).textContent).toBe('Completion test failed: The model provider failed');
    expect(within(completionSection()).queryByText('Response Received')).toBeNull();
    expect(warn).not.toHaveBeenCalled();
  });

  it('tells an anonymous visitor without a key that one is needed, instead of calling and failing with 401', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const server = fakeGatewayServer({ apps: [haiku()] });
    renderConsole({ route: '/api-test?app=haiku-writer', signedIn: false });
    await screen.findByRole('heading', { name: 'Application Details' });

    // A completion app: only its own mode is offered (issue 61).
    expect(screen.queryByRole('region', { name: 'Test Chat API' })).toBeNull();
    await testCompletion('Hello');
    expect(within(completionSection()).getByRole('alert').textContent).toBe(API_KEY_REQUIRED);
    expect(server.gatewayCalls).toEqual([]);
    expect(warn).not.toHaveBeenCalled();

    // With a key pasted, the same button calls.
    fireEvent.change(screen.getByLabelText('API Key'), { target: { value: 'tb_key' } });
    fireEvent.click(within(completionSection()).getByRole('button', { name: 'Test Completion' }));
    await within(completionSection()).findByText('Response Received');
    expect(within(completionSection()).queryByText(API_KEY_REQUIRED)).toBeNull();
    expect(server.gatewayCalls).toHaveLength(1);
  });

  it('renders a public app’s real fields for anonymous visitors and puts the Input Text in the app’s text input', async () => {
    const publicHaiku = makeApp({ name: 'Haiku Writer', slug: 'haiku-writer', status: 'live', visibility: 'public', is_owner: false });
    const server = fakeGatewayServer({ apps: [publicHaiku], catalog: { 'haiku-writer': makeCatalogAppDetail() } });
    renderConsole({ route: '/api-test?app=haiku-writer', signedIn: false });

    const inputs = await screen.findByRole('region', { name: 'App Inputs' });
    // One input per field but the text input, which the Input Text fills.
    expect(within(inputs).getByLabelText(/^style/).tagName).toBe('SELECT');
    expect(within(inputs).getByLabelText('lines')).toBeTruthy();
    expect(within(inputs).queryByLabelText(/^topic/)).toBeNull();
    expect(inputs.textContent).toContain('Input Text fills topic');

    fireEvent.change(within(inputs).getByLabelText(/^style/), { target: { value: 'modern' } });
    fireEvent.change(within(inputs).getByLabelText('lines'), { target: { value: '3' } });
    fireEvent.change(screen.getByLabelText('API Key'), { target: { value: 'tb_visitor' } });
    await testCompletion('autumn leaves');
    await within(completionSection()).findByText('Response Received');
    expect(server.gatewayCalls[0]).toMatchObject({
      body: { inputs: { style: 'modern', lines: 3, topic: 'autumn leaves' }, response_mode: 'blocking' },
      authorization: 'Bearer tb_visitor',
    });
    expect(server.calls()).toContain('GET /api/app/haiku-writer/inputs');
  });

  it('reads a public app’s fields from the catalog for a signed-in user who does not own it', async () => {
    const theirs = makeApp({ name: 'Haiku Writer', slug: 'haiku-writer', status: 'live', visibility: 'public', is_owner: false });
    const server = fakeGatewayServer({ apps: [theirs], catalog: { 'haiku-writer': makeCatalogAppDetail() } });
    renderConsole({ route: '/api-test?app=haiku-writer' });

    const inputs = await screen.findByRole('region', { name: 'App Inputs' });
    fireEvent.change(within(inputs).getByLabelText(/^style/), { target: { value: 'classic' } });
    await testCompletion('owls');
    await within(completionSection()).findByText('Response Received');
    expect(server.gatewayCalls[0]?.body.inputs).toEqual({ style: 'classic', topic: 'owls' });
    expect(server.calls()).not.toContain('GET /api/app/haiku-writer/prompt/');
  });

  it('gives a caller the fields of an embed app (not in the catalog) so its required input can be tested (issue 25)', async () => {
    const embedded = makeApp({ name: 'Embedded Haiku', slug: 'embedded-haiku', status: 'live', visibility: 'embed', is_owner: false });
    const server = fakeGatewayServer({ apps: [embedded], catalog: { 'embedded-haiku': makeCatalogAppDetail({ slug: 'embedded-haiku' }) } });
    renderConsole({ route: '/api-test?app=embedded-haiku' });
    const inputs = await screen.findByRole('region', { name: 'App Inputs' });
    fireEvent.change(within(inputs).getByLabelText(/^style/), { target: { value: 'classic' } });
    await testCompletion('owls');
    await within(completionSection()).findByText('Response Received');
    expect(server.gatewayCalls[0]?.body.inputs).toEqual({ style: 'classic', topic: 'owls' });
    expect(server.calls()).toContain('GET /api/app/embedded-haiku/inputs');
  });

  it('marks a demo-model app and lets a caller download its front end (issue 25 items 7, 8)', async () => {
    const theirs = makeApp({ name: 'Embedded Haiku', slug: 'embedded-haiku', status: 'live', visibility: 'embed', is_owner: false });
    const server = fakeGatewayServer({ apps: [theirs], catalog: { 'embedded-haiku': makeCatalogAppDetail({ slug: 'embedded-haiku', demo_model: true }) } });
    URL.createObjectURL = vi.fn(() => 'blob:zip');
    URL.revokeObjectURL = vi.fn();
    const saved: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
    });
    renderConsole({ route: '/api-test?app=embedded-haiku' });
    const details = await screen.findByRole('region', { name: 'Application Details' });
    expect((await within(details).findByText(/^Demo model/)).textContent).toContain('free sample answers');
    fireEvent.click(within(details).getByRole('button', { name: 'Download App' }));
    await waitFor(() => expect(saved).toEqual(['embedded-haiku-completion-app.zip']));
    expect(server.calls()).toContain('GET /api/app/embedded-haiku/download-frontend?type=completion');
  });

  it('clears the last app’s answers, errors and field values when another app is chosen', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    fakeGatewayServer({
      apps: [haiku(), flow()],
      inputSchemas: {
        'haiku-writer': {
          type: 'object',
          properties: { query: { type: 'string' }, topic: { type: 'string' } },
          required: ['query'],
          additionalProperties: false,
        },
      },
    });
    renderConsole();
    const dropdown = screen.getByLabelText('Application') as HTMLSelectElement;
    await screen.findByRole('option', { name: 'Haiku Writer (prompt)' });
    fireEvent.change(dropdown, { target: { value: 'haiku-writer' } });
    fireEvent.change(await screen.findByLabelText('topic'), { target: { value: 'owls' } });

    await testCompletion('First app');
    await within(completionSection()).findByText('Response Received');
    // A completion app offers no chat test (issue 61).
    expect(screen.queryByRole('region', { name: 'Test Chat API' })).toBeNull();

    fireEvent.change(dropdown, { target: { value: 'support-flow' } });
    // A chat workflow: the chat test only, and nothing of the last app's answer.
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Test Completion API' })).toBeNull());
    expect(chatSection()).toBeTruthy();
    expect(screen.queryByText('You said: First app')).toBeNull();

    fireEvent.change(dropdown, { target: { value: 'haiku-writer' } });
    expect(((await screen.findByLabelText('topic')) as HTMLInputElement).value).toBe('');
  });
});
