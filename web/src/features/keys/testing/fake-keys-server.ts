// A fake of /api/keys/ over a stubbed fetch: keys in memory, the full key only in the create answer,
// 204 on revoke, {code, message, status} errors.
import type { ApiKey, ApiKeyCreated } from '@tollbooth/contract';
import { vi } from 'vitest';
import { jsonResponse } from '@/testing/test-utils';

let nextId = 1;

export function makeApiKey(overrides: Partial<ApiKey> = {}): ApiKey {
  const id = nextId++;
  return {
    id: `10000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
    name: `Key ${id}`,
    prefix: `tb_Prefix${id}`,
    created_at: '2024-05-01T10:00:00.000Z',
    last_used_at: null,
    revoked_at: null,
    monthly_spend_limit_cents: null,
    max_price_cents: null,
    spent_this_month_cents: 0,
    kind: 'secret',
    publishable: null,
    ...overrides,
  };
}

export function fakeKeysServer({ keys = [] as ApiKey[], failCreate = false } = {}) {
  const state = { keys: [...keys] };
  const fetchMock = vi.fn(async (input: string, init?: RequestInit) => {
    const url = new URL(input, 'http://localhost');
    const method = init?.method ?? 'GET';
    if (url.pathname === '/api/keys/' && method === 'GET') return jsonResponse(state.keys);
    if (url.pathname === '/api/keys/' && method === 'POST') {
      if (failCreate) return jsonResponse({ code: 'invalid_param', message: 'name: must NOT have fewer than 1 characters', status: 400 }, 400);
      const body = JSON.parse(String(init?.body)) as { name: string; monthly_spend_limit_cents?: number };
      const key = makeApiKey({ name: body.name, monthly_spend_limit_cents: body.monthly_spend_limit_cents ?? null });
      const created: ApiKeyCreated = { ...key, key: `${key.prefix}SecretRestOfTheKey` };
      state.keys.unshift(key);
      return jsonResponse(created, 201);
    }
    const revoke = /^\/api\/keys\/([^/]+)\/$/.exec(url.pathname);
    if (revoke && method === 'DELETE') {
      state.keys = state.keys.filter((key) => key.id !== revoke[1]);
      return new Response(null, { status: 204 });
    }
    return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
  });
  vi.stubGlobal('fetch', fetchMock);

  const calls = () => fetchMock.mock.calls.map(([input, init]) => `${init?.method ?? 'GET'} ${new URL(input, 'http://localhost').pathname}`);
  const bodyOf = (call: string) => {
    const index = calls().lastIndexOf(call);
    const init = fetchMock.mock.calls[index]?.[1];
    return init?.body ? JSON.parse(String(init.body)) : undefined;
  };
  return { fetchMock, state, calls, bodyOf };
}
