// Test helpers: render a tree with the providers the app gives it, but a fake sign-in state.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { RuntimeConfig } from '@tollbooth/contract';
import type { ReactNode } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, vi } from 'vitest';
import { setAccessTokenGetter } from '@/lib/api-client';
import { AuthContext, type AuthContextValue } from '@/lib/auth/auth-context';
import { RuntimeConfigContext } from '../lib/runtime-config';

export const testRuntimeConfig: RuntimeConfig = {
  product_name: 'Tollbooth',
  oidc: {
    issuer: 'http://localhost:3000/oidc',
    client_id: 'tollbooth-web',
    audience: 'http://localhost:3000/api',
    provider_name: 'Tollbooth',
    embedded: true,
    scopes: 'openid profile email offline_access',
  },
  stripe_publishable_key: null,
  public_url: 'http://localhost:3000',
  demo_models: [],
};

export function fakeAuth(overrides: Partial<AuthContextValue> = {}): AuthContextValue {
  return {
    status: 'unauthenticated',
    user: null,
    error: null,
    providerName: 'Tollbooth',
    signIn: vi.fn(async () => true),
    completeSignIn: vi.fn(async () => {}),
    signOut: vi.fn(async () => {}),
    getAccessToken: vi.fn(async () => null),
    ...overrides,
  };
}

export function signedInAuth(overrides: Partial<AuthContextValue> = {}): AuthContextValue {
  return fakeAuth({
    status: 'authenticated',
    user: { id: 'user-1', email: 'ada@example.com', name: 'Ada Lovelace' },
    getAccessToken: vi.fn(async () => 'test-token'),
    ...overrides,
  });
}

export function createTestQueryClient(): QueryClient {
  return new QueryClient({ defaultOptions: { queries: { retry: false, gcTime: Number.POSITIVE_INFINITY }, mutations: { retry: false } } });
}

interface RenderOptions {
  route?: string;
  auth?: AuthContextValue;
  queryClient?: QueryClient;
  runtimeConfig?: RuntimeConfig;
}

export function renderWithProviders(
  ui: ReactNode,
  { route = '/', auth = fakeAuth(), queryClient = createTestQueryClient(), runtimeConfig = testRuntimeConfig }: RenderOptions = {},
) {
  const result = render(
    <MemoryRouter initialEntries={[route]}>
      <QueryClientProvider client={queryClient}>
        <RuntimeConfigContext.Provider value={runtimeConfig}>
          <AuthContext.Provider value={auth}>{ui}</AuthContext.Provider>
        </RuntimeConfigContext.Provider>
      </QueryClientProvider>
    </MemoryRouter>,
  );
  return { ...result, queryClient, auth };
}

/**
 * Renders one page, signed in, at `route`: `element` is the page at `path`; `elsewhere`, when
 * given, answers every other path (where the page navigates to after a save).
 */
export function renderSignedInPage(path: string, element: ReactNode, route: string, elsewhere?: ReactNode) {
  return renderWithProviders(
    <Routes>
      <Route path={path} element={element} />
      {elsewhere ? <Route path="*" element={elsewhere} /> : null}
    </Routes>,
    { route, auth: signedInAuth() },
  );
}

/** A fetch Response with a JSON body. */
export function jsonResponse(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

/**
 * For the test file it is called in: the API client signed in (token `test-token`) before each test,
 * and after it signed out again and any stubbed global (fetch) restored.
 */
export function signInApiEachTest(): void {
  let restore = () => {};
  beforeEach(() => {
    restore = setAccessTokenGetter(async () => 'test-token');
  });
  afterEach(() => {
    restore();
    vi.unstubAllGlobals();
  });
}

/** The calls a stubbed fetch received, as "METHOD /path?query" strings. */
export const callsOf = (fetchMock: { mock: { calls: [string, RequestInit?][] } }) =>
  fetchMock.mock.calls.map(([input, init]) => {
    const url = new URL(input, 'http://localhost');
    return `${init?.method ?? 'GET'} ${url.pathname}${url.search}`;
  });
