// Settings → Webhooks (issue 62) over a stubbed /api/webhooks/: the secret shown once after adding an
// endpoint, a failing endpoint told on the page, the delivery log and its "Send again", the empty
// states, and the alert thresholds saved in cents.

import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { WebhookAlertSettings, WebhookAttempt, WebhookEndpoint } from '@tollbooth/contract';
import { describe, expect, it, vi } from 'vitest';
import { withTestAccessToken } from '@/testing/fake-apps-server';
import { jsonResponse, renderWithProviders, signedInAuth } from '@/testing/test-utils';
import { WebhooksPage } from './webhooks-page';

withTestAccessToken();

const ENDPOINT: WebhookEndpoint = {
  id: '20000000-0000-4000-8000-000000000001',
  url: 'https://books.example/hooks',
  description: 'Accounting',
  events: ['topup.succeeded', 'payout.paid'],
  enabled: true,
  failing_since: '2026-12-06T10:00:00.000Z',
  failing_reason: 'gave up after 12 attempts over 24 h: 503',
  created_at: '2026-12-01T10:00:00.000Z',
};
const ATTEMPT: WebhookAttempt = {
  id: '30000000-0000-4000-8000-000000000001',
  delivery_id: '40000000-0000-4000-8000-000000000001',
  event_id: '50000000-0000-4000-8000-000000000001',
  event_type: 'topup.succeeded',
  attempted_at: '2026-12-06T09:00:00.000Z',
  ok: false,
  status_code: 503,
  latency_ms: 42,
  response_snippet: 'upstream down',
  error: 'HTTP 503',
  manual: false,
  delivery_status: 'failed',
};
const SETTINGS: WebhookAlertSettings = { credits_low_cents: 500, credits_low_percent: null, error_rate_percent: null, mail_events: [], mail_available: false };

function fakeWebhooksServer(endpoints: WebhookEndpoint[]) {
  const fetchMock = vi.fn(async (input: string, init?: RequestInit) => {
    const path = new URL(input, 'http://localhost').pathname;
    const method = init?.method ?? 'GET';
    if (path === '/api/webhooks/endpoints/' && method === 'GET') return jsonResponse(endpoints);
    if (path === '/api/webhooks/endpoints/' && method === 'POST') {
      const body = JSON.parse(String(init?.body)) as { url: string; description: string; events: WebhookEndpoint['events'] };
      return jsonResponse(
        {
          ...ENDPOINT,
          id: '20000000-0000-4000-8000-000000000009',
          ...body,
          failing_since: null,
          failing_reason: null,
          secret: 'whsec_c2VjcmV0LXNob3duLW9uY2U=',
        },
        201,
      );
    }
    if (path === `/api/webhooks/endpoints/${ENDPOINT.id}/attempts/`) return jsonResponse([ATTEMPT]);
    if (path.endsWith('/send-again/') && method === 'POST') return jsonResponse(null, 202);
    if (path === '/api/webhooks/settings/' && method === 'GET') return jsonResponse(SETTINGS);
    if (path === '/api/webhooks/settings/' && method === 'PATCH') return jsonResponse({ ...SETTINGS, ...JSON.parse(String(init?.body)) });
    return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
  });
  vi.stubGlobal('fetch', fetchMock);
  const sent = (method: string, pathEnd: string) =>
    fetchMock.mock.calls.filter(([input, init]) => (init?.method ?? 'GET') === method && new URL(input, 'http://localhost').pathname.endsWith(pathEnd));
  return { fetchMock, sent };
}

describe('the webhooks page', () => {
  it('says there are no endpoints yet, and shows a new endpoint’s signing secret once', async () => {
    const server = fakeWebhooksServer([]);
    renderWithProviders(<WebhooksPage />, { route: '/settings/webhooks', auth: signedInAuth() });
    expect(await screen.findByText('No endpoints yet.')).toBeTruthy();
    const form = screen.getByRole('form', { name: 'Add an endpoint' });
    fireEvent.change(within(form).getByLabelText('Endpoint URL'), { target: { value: ' https://books.example/new ' } });
    fireEvent.click(within(form).getByLabelText('payout.failed'));
    fireEvent.click(within(form).getByRole('button', { name: 'Add endpoint' }));
    expect((await screen.findByTestId('webhook-secret')).textContent).toBe('whsec_c2VjcmV0LXNob3duLW9uY2U=');
    const [, init] = server.sent('POST', '/api/webhooks/endpoints/')[0]!;
    expect(JSON.parse(String(init!.body))).toEqual({
      url: 'https://books.example/new',
      description: '',
      events: ['topup.succeeded', 'credits.low', 'payout.failed'],
    });
  });

  it('tells a failing endpoint on the page, and sends a delivery again from its log', async () => {
    const server = fakeWebhooksServer([ENDPOINT]);
    renderWithProviders(<WebhooksPage />, { route: '/settings/webhooks', auth: signedInAuth() });
    const failing = await screen.findByRole('alert');
    expect(failing.textContent).toContain('gave up after 12 attempts over 24 h: 503');
    fireEvent.click(screen.getByRole('button', { name: 'Delivery log' }));
    const log = await screen.findByRole('region', { name: `Delivery log of ${ENDPOINT.url}` });
    expect(await within(log).findByText('503')).toBeTruthy();
    expect(within(log).getByText('gave up')).toBeTruthy();
    expect(within(log).getByText(ATTEMPT.event_id)).toBeTruthy();
    fireEvent.click(within(log).getByRole('button', { name: 'Send again' }));
    await waitFor(() => expect(server.sent('POST', `/deliveries/${ATTEMPT.delivery_id}/send-again/`)).toHaveLength(1));
  });

  it('saves the credits threshold in cents', async () => {
    const server = fakeWebhooksServer([]);
    renderWithProviders(<WebhooksPage />, { route: '/settings/webhooks', auth: signedInAuth() });
    const threshold = (await screen.findByLabelText('Credits low below ($)')) as HTMLInputElement;
    expect(threshold.value).toBe('5.00');
    fireEvent.change(threshold, { target: { value: '12.34' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save alerts' }));
    expect(await screen.findByText('Saved.')).toBeTruthy();
    const [, init] = server.sent('PATCH', '/api/webhooks/settings/')[0]!;
    expect(JSON.parse(String(init!.body))).toMatchObject({ credits_low_cents: 1234, credits_low_percent: null, error_rate_percent: null });
  });
});
