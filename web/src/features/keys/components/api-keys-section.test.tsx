import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withTestAccessToken } from '@/testing/fake-apps-server';
import { renderWithProviders, signedInAuth } from '@/testing/test-utils';
import { fakeKeysServer, makeApiKey } from '../testing/fake-keys-server';
import { REVOKE_CONFIRM_MESSAGE } from './api-key-table';
import { ApiKeysSection } from './api-keys-section';
import { COPY_KEY_WARNING } from './new-api-key-notice';

withTestAccessToken();

afterEach(() => {
  vi.useRealTimers();
});

function renderSection() {
  return renderWithProviders(<ApiKeysSection />, { route: '/profile', auth: signedInAuth() });
}

function stubClipboard(writeText = vi.fn(async () => {})) {
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
  return writeText;
}

describe('ApiKeysSection', () => {
  it('shows the empty state', async () => {
    fakeKeysServer();
    renderSection();
    expect(screen.getByRole('heading', { name: 'API Keys' })).toBeTruthy();
    expect(await screen.findByText('No API keys yet')).toBeTruthy();
  });

  it('lists keys with prefix, last use, spend and limit', async () => {
    const used = makeApiKey({
      name: 'Server',
      prefix: 'tb_AbCd1234',
      last_used_at: '2024-06-01T12:00:00.000Z',
      spent_this_month_cents: 125,
      monthly_spend_limit_cents: 1000,
    });
    const fresh = makeApiKey({ name: 'Laptop', prefix: 'tb_XyZ98765' });
    fakeKeysServer({ keys: [used, fresh] });
    renderSection();

    const table = await screen.findByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((header) => header.textContent),
    ).toEqual(['Name', 'Key', 'Last Used', 'Spend This Month', 'Limit', 'Actions']);
    const [, serverRow, laptopRow] = within(table).getAllByRole('row');
    expect(Array.from(serverRow?.querySelectorAll('td') ?? []).map((cell) => cell.textContent)).toEqual([
      'Server',
      'tb_AbCd1234…',
      new Date('2024-06-01T12:00:00.000Z').toLocaleString(),
      '$1.25',
      '$10.00 a month',
      'Revoke',
    ]);
    expect(laptopRow?.textContent).toContain('Never');
    expect(laptopRow?.textContent).toContain('No limit');
  });

  it('shows a per-call price cap as a limit, not "No limit"', async () => {
    fakeKeysServer({ keys: [makeApiKey({ name: 'Capped', prefix: 'tb_Cap12345', monthly_spend_limit_cents: null, max_price_cents: 5 })] });
    renderSection();
    const table = await screen.findByRole('table');
    const [, row] = within(table).getAllByRole('row');
    expect(row?.textContent).toContain('at most $0.05 a call');
    expect(row?.textContent).not.toContain('No limit');
  });

  it('creates a key, shows it once, copies it, and hides it when done', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const server = fakeKeysServer();
    const writeText = stubClipboard();
    renderSection();
    await screen.findByText('No API keys yet');

    fireEvent.change(screen.getByLabelText('Key Name'), { target: { value: '  CI runner ' } });
    fireEvent.change(screen.getByLabelText('Monthly Spend Limit (cents)'), { target: { value: '500' } });
    fireEvent.change(screen.getByLabelText('Max Price per Call (cents)'), { target: { value: '25' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Key' }));

    const notice = await screen.findByTestId('new-api-key-notice');
    expect(server.bodyOf('POST /api/keys/')).toEqual({ name: 'CI runner', monthly_spend_limit_cents: 500, max_price_cents: 25 });
    expect(within(notice).getByText(COPY_KEY_WARNING)).toBeTruthy();
    const fullKey = `${server.state.keys[0]?.prefix}SecretRestOfTheKey`;
    expect(within(notice).getByTestId('new-api-key').textContent).toBe(fullKey);
    expect((screen.getByLabelText('Key Name') as HTMLInputElement).value).toBe('');

    // The list refreshes and shows only the prefix.
    const row = await screen.findByRole('row', { name: /CI runner/ });
    expect(row.textContent).toContain(`${server.state.keys[0]?.prefix}…`);
    expect(row.textContent).not.toContain('SecretRestOfTheKey');
    expect(row.textContent).toContain('$5.00');

    fireEvent.click(within(notice).getByRole('button', { name: 'Copy' }));
    expect(await within(notice).findByRole('button', { name: 'Copied!' })).toBeTruthy();
    expect(writeText).toHaveBeenCalledWith(fullKey);
    // Let the effect that starts the 2-second timer run before moving the clock.
    await act(async () => {});
    await act(async () => {
      vi.advanceTimersByTime(2000);
    });
    expect(within(notice).getByRole('button', { name: 'Copy' })).toBeTruthy();

    fireEvent.click(within(notice).getByRole('button', { name: 'Done' }));
    expect(screen.queryByTestId('new-api-key-notice')).toBeNull();
    expect(screen.queryByText(fullKey)).toBeNull();
  });

  it('says when copying is not possible', async () => {
    fakeKeysServer();
    stubClipboard(vi.fn(async () => Promise.reject(new Error('denied'))));
    renderSection();
    fireEvent.change(screen.getByLabelText('Key Name'), { target: { value: 'Key' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Key' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Copy' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Could not copy automatically. Select the key and copy it by hand.');
  });

  it('validates the form before sending it and shows server errors', async () => {
    const server = fakeKeysServer({ failCreate: true });
    renderSection();

    fireEvent.click(screen.getByRole('button', { name: 'Create Key' }));
    expect(screen.getByText('Key name is required.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Key Name'), { target: { value: 'Key' } });
    fireEvent.change(screen.getByLabelText('Monthly Spend Limit (cents)'), { target: { value: '1.5' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Key' }));
    expect(screen.getByText('Monthly spend limit must be a whole number of cents, 0 or more.')).toBeTruthy();
    expect(server.calls()).not.toContain('POST /api/keys/');

    fireEvent.change(screen.getByLabelText('Monthly Spend Limit (cents)'), { target: { value: '' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Key' }));
    expect((await screen.findByRole('alert')).textContent).toBe('name: must NOT have fewer than 1 characters');
    expect(server.bodyOf('POST /api/keys/')).toEqual({ name: 'Key' });
  });

  it('revokes a key only after confirmation', async () => {
    const key = makeApiKey({ name: 'Old key' });
    const server = fakeKeysServer({ keys: [key] });
    const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
    renderSection();

    const revoke = await screen.findByRole('button', { name: 'Revoke Old key' });
    fireEvent.click(revoke);
    expect(confirm).toHaveBeenCalledWith(REVOKE_CONFIRM_MESSAGE);
    expect(server.calls()).not.toContain(`DELETE /api/keys/${key.id}/`);

    fireEvent.click(revoke);
    expect(await screen.findByText('No API keys yet')).toBeTruthy();
    expect(server.calls()).toContain(`DELETE /api/keys/${key.id}/`);
    await waitFor(() => expect(confirm).toHaveBeenCalledTimes(2));
  });
});
