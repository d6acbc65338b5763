// A fake of the /api/app/ endpoints over a stubbed fetch, for the screens' tests: it keeps its
// applications in memory and answers like the server (201 on create and duplicate, 204 on delete,
// {code, message, status} errors).

import type { Application, UsageAnalytics } from '@tollbooth/contract';
import { beforeEach, vi } from 'vitest';
import { setAccessTokenGetter } from '@/lib/api-client';
import { callsOf, jsonResponse } from './test-utils';

let nextId = 1;

export function makeApp(overrides: Partial<Application> = {}): Application {
  const id = nextId++;
  const name = overrides.name ?? `App ${id}`;
  return {
    id: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
    name,
    slug: name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
    description: '',
    type: 'prompt',
    interaction_mode: 'completion',
    visibility: 'private',
    status: 'draft',
    price_cents: 100,
    upcoming_price_cents: null,
    upcoming_price_at: null,
    created_at: '2024-05-01T10:00:00.000Z',
    updated_at: '2024-05-02T10:00:00.000Z',
    creator_name: 'Ada L.',
    is_owner: true,
    ...overrides,
  };
}

export function makeUsage(overrides: Partial<UsageAnalytics> = {}): UsageAnalytics {
  const cents = overrides.total_revenue_cents ?? 0;
  return {
    total_invocations: 0,
    total_users: 0,
    other_currency_revenue: [],
    total_revenue: cents / 100,
    total_revenue_cents: cents,
    total_platform_fee_cents: 0,
    total_model_cost: 0,
    total_model_cost_micros: 0,
    total_net: cents / 100,
    data: [],
    ...overrides,
  };
}

type Handler = (url: URL, init: RequestInit | undefined) => Response | Promise<Response> | undefined;

interface FakeServerOptions {
  apps?: Application[];
  usage?: Record<string, UsageAnalytics | 'error'>;
  /** Runs first; answer a Response to override the fake for one call. */
  override?: Handler;
}

const notFound = () => jsonResponse({ code: 'not_found', message: 'Application not found', status: 404 }, 404);

export function fakeAppsServer({ apps = [], usage = {}, override }: FakeServerOptions = {}) {
  const state = { apps: [...apps] };
  const find = (slug: string) => state.apps.find((app) => app.slug === slug);

  const fetchMock = vi.fn(async (input: string, init?: RequestInit) => {
    const url = new URL(input, 'http://localhost');
    const method = init?.method ?? 'GET';
    const overridden = await override?.(url, init);
    if (overridden) return overridden;
    const body = init?.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : {};

    if (url.pathname === '/api/app/') {
      if (method === 'GET') return jsonResponse(state.apps);
      if (method === 'POST') {
        const created = makeApp({ ...(body as Partial<Application>), provider_config: undefined });
        state.apps.unshift(created);
        return jsonResponse(created, 201);
      }
    }

    const match = /^\/api\/app\/([^/]+)\/(.*)$/.exec(url.pathname);
    if (!match) return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
    const slug = decodeURIComponent(match[1] as string);
    const rest = match[2];
    const app = find(slug);
    if (!app) return notFound();

    if (rest === '' && method === 'GET') return jsonResponse(app);
    if (rest === '' && method === 'PATCH') {
      Object.assign(app, body, { updated_at: '2024-06-01T10:00:00.000Z' });
      return jsonResponse(app);
    }
    if (rest === '' && method === 'DELETE') {
      state.apps = state.apps.filter((candidate) => candidate !== app);
      return new Response(null, { status: 204 });
    }
    if (rest === 'update_status/' && method === 'PATCH') {
      app.status = body.status as Application['status'];
      return jsonResponse(app);
    }
    if (rest === 'duplicate/' && method === 'POST') {
      const copy = makeApp({ ...app, name: `${app.name} copy`, slug: `${app.slug}-copy`, status: 'draft' });
      state.apps.unshift(copy);
      return jsonResponse(copy, 201);
    }
    if (rest === 'analytics/usage/') {
      const answer = usage[slug];
      if (answer === 'error') return jsonResponse({ code: 'internal', message: 'Boom', status: 500 }, 500);
      return jsonResponse(answer ?? makeUsage());
    }
    if (rest === 'download-frontend') return jsonResponse({ code: 'not_found', message: 'Route GET:/api/app/x/download-frontend not found', status: 404 }, 404);
    return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
  });

  vi.stubGlobal('fetch', fetchMock);

  /** The calls made so far as "METHOD /path?query" strings. */
  const calls = () => callsOf(fetchMock);

  const bodyOf = (call: string) => {
    const index = calls().lastIndexOf(call);
    const init = fetchMock.mock.calls[index]?.[1];
    return init?.body ? JSON.parse(String(init.body)) : undefined;
  };

  return { fetchMock, state, calls, bodyOf };
}

/** Registers a bearer token for the API client for every test of the file (the auth provider does it in the app). */
export function withTestAccessToken() {
  beforeEach(() => setAccessTokenGetter(async () => 'test-token'));
}
