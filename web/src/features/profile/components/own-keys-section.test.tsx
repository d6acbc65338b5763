import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { ProviderCredential } from '@tollbooth/contract';
import { describe, expect, it, vi } from 'vitest';
import { jsonResponse, renderWithProviders, signedInAuth, signInApiEachTest } from '@/testing/test-utils';
import { OwnKeysSection } from './own-keys-section';

type FetchCall = [string, RequestInit | undefined];

/** A fake of /api/profile/provider-keys/: the list, PUT storing a masked key, and Test Connection. */
function fakeServer() {
  const stored: ProviderCredential[] = [
    { kind: 'openai', base_url: 'https://llm.example.com/v1', api_key_masked: '••••••••1234', updated_at: '2026-11-27T10:00:00.000Z' },
  ];
  const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    const method = init?.method ?? 'GET';
    if (url === '/api/profile/provider-keys/' && method === 'GET') return jsonResponse({ results: stored });
    const put = /^\/api\/profile\/provider-keys\/(\w+)\/$/.exec(url);
    if (put && method === 'PUT') {
      const body = JSON.parse(String(init?.body)) as { api_key: string };
      const row = {
        kind: put[1] as ProviderCredential['kind'],
        base_url: null,
        api_key_masked: `••••••••${body.api_key.slice(-4)}`,
        updated_at: new Date().toISOString(),
      };
      stored.push(row);
      return jsonResponse(row);
    }
    if (url === '/api/profile/provider-keys/openai/test/' && method === 'POST') {
      return jsonResponse({
        success: false,
        message: 'The OpenAI-compatible provider answered 401: Incorrect API key provided.',
        model: 'gpt-4-turbo',
        latency_ms: 12,
      });
    }
    return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

const bodiesOf = (fetchMock: ReturnType<typeof fakeServer>, method: string, url: string) =>
  (fetchMock.mock.calls as FetchCall[])
    .filter(([u, init]) => u === url && (init?.method ?? 'GET') === method)
    .map(([, init]) => JSON.parse(String(init?.body)));

signInApiEachTest();

describe('OwnKeysSection', () => {
  it('shows saved keys masked, saves a new key and reports a failed Test Connection', async () => {
    const fetchMock = fakeServer();
    renderWithProviders(<OwnKeysSection />, { route: '/profile', auth: signedInAuth() });

    const openai = await screen.findByRole('form', { name: 'OpenAI-compatible' });
    expect(within(openai).getByText('••••••••1234')).toBeTruthy();
    expect((within(openai).getByLabelText('Base URL') as HTMLInputElement).value).toBe('https://llm.example.com/v1');
    const anthropic = screen.getByRole('form', { name: 'Anthropic' });
    expect(within(anthropic).getByText('Not set')).toBeTruthy();
    expect(within(anthropic).queryByLabelText('Base URL')).toBeNull();

    fireEvent.change(within(anthropic).getByLabelText('API key'), { target: { value: 'sk-ant-secret-WXYZ' } });
    fireEvent.click(within(anthropic).getByRole('button', { name: 'Save Anthropic key' }));
    await waitFor(() => expect(bodiesOf(fetchMock, 'PUT', '/api/profile/provider-keys/anthropic/')).toEqual([{ api_key: 'sk-ant-secret-WXYZ' }]));
    expect(await within(screen.getByRole('form', { name: 'Anthropic' })).findByText('••••••••WXYZ')).toBeTruthy();
    expect(await within(anthropic).findByText('Anthropic key saved (••••••••WXYZ): apps set to My own key use it now.')).toBeTruthy();

    // Test Connection with the stored key: only the base URL is sent, the key field is empty.
    fireEvent.click(within(openai).getByRole('button', { name: 'Test Connection' }));
    expect((await within(openai).findByTestId('own-key-test-openai')).textContent).toMatch(/^Tested the saved key: Connection failed: .*401/);
    expect(bodiesOf(fetchMock, 'POST', '/api/profile/provider-keys/openai/test/')).toEqual([{ base_url: 'https://llm.example.com/v1' }]);
  });
});
