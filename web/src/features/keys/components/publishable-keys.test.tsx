import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { withTestAccessToken } from '@/testing/fake-apps-server';
import { renderWithProviders, signedInAuth } from '@/testing/test-utils';
import { fakeKeysServer, makeApiKey } from '../testing/fake-keys-server';
import { ApiKeysSection } from './api-keys-section';

withTestAccessToken();

const publishable = makeApiKey({
  name: 'Shop widget',
  prefix: 'pk_Shop1234',
  kind: 'publishable',
  monthly_spend_limit_cents: 5000,
  spent_this_month_cents: 300,
  publishable: {
    key: `pk_${'S'.repeat(43)}`,
    allowed_origins: ['https://shop.example'],
    app_slugs: ['owl-helper'],
    daily_spend_limit_cents: 1000,
    visitor_rate_limit_per_minute: 10,
    spent_today_cents: 125,
  },
});

describe('publishable keys on the profile page', () => {
  it('are listed apart from secret keys, whole, with their websites, apps and spend against both caps', async () => {
    fakeKeysServer({ keys: [publishable, makeApiKey({ name: 'Server' })] });
    renderWithProviders(<ApiKeysSection />, { route: '/profile', auth: signedInAuth() });
    const row = await screen.findByTestId(`publishable-key-row-${publishable.id}`);
    expect(within(row).getByText(publishable.publishable!.key)).toBeTruthy();
    expect(within(row).getByText('https://shop.example')).toBeTruthy();
    expect(within(row).getByText('owl-helper')).toBeTruthy();
    expect(within(row).getByText('$1.25 of $10.00')).toBeTruthy();
    expect(within(row).getByText('$3.00 of $50.00')).toBeTruthy();
    expect(screen.queryByTestId(`api-key-row-${publishable.id}`)).toBeNull();
    expect(screen.getByText('Server')).toBeTruthy();
  });

  it('hint, for each website, at the origins a browser treats as another website (issue 61)', async () => {
    const details = { ...publishable.publishable!, allowed_origins: ['https://shop.example', 'http://localhost:5173', 'https://www.blog.example'] };
    fakeKeysServer({ keys: [{ ...publishable, publishable: details }] });
    renderWithProviders(<ApiKeysSection />, { route: '/profile', auth: signedInAuth() });
    const origins = within(await screen.findByTestId('key-origins'));
    expect(origins.getByText('Not https://www.shop.example: list it too if the site answers there.')).toBeTruthy();
    expect(origins.getByText('Only this port; http://127.0.0.1:5173 is a different origin.')).toBeTruthy();
    expect(origins.getByText('Not https://blog.example: list it too if the site answers there.')).toBeTruthy();
  });

  it('are created with their websites, apps and caps', async () => {
    const server = fakeKeysServer();
    renderWithProviders(<ApiKeysSection />, { route: '/profile', auth: signedInAuth() });
    const form = screen.getByRole('form', { name: 'Create a publishable key' });
    const fill = (label: string, value: string) => fireEvent.change(within(form).getByLabelText(label), { target: { value } });
    fill('Widget Name', 'Shop widget');
    fill('Allowed Websites', 'https://shop.example, https://www.shop.example');
    fill('Apps (slugs)', 'owl-helper');
    fill('Daily Spend Cap (cents)', '200');
    fill('Monthly Spend Cap (cents)', '4000');
    fireEvent.click(within(form).getByRole('button', { name: 'Create Publishable Key' }));
    await waitFor(() => expect(server.fetchMock.mock.calls.some(([, init]) => init?.method === 'POST')).toBe(true));
    const [, init] = server.fetchMock.mock.calls.find(([, request]) => request?.method === 'POST')!;
    expect(JSON.parse(String(init!.body))).toEqual({
      name: 'Shop widget',
      kind: 'publishable',
      allowed_origins: ['https://shop.example', 'https://www.shop.example'],
      app_slugs: ['owl-helper'],
      daily_spend_limit_cents: 200,
      monthly_spend_limit_cents: 4000,
      visitor_rate_limit_per_minute: 10,
    });
  });
});
