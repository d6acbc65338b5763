import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse } from '../testing/test-utils';
import { api, buildApiUrl, setAccessTokenGetter } from './api-client';
import { ApiError } from './errors';

let restoreGetter: (() => void) | null = null;
afterEach(() => {
  restoreGetter?.();
  restoreGetter = null;
});

describe('api client', () => {
  it('builds URLs under /api/', () => {
    expect(buildApiUrl('/auth/profile/')).toBe('/api/auth/profile/');
    expect(buildApiUrl('analytics/dashboard/', { days: 30, skip: undefined })).toBe('/api/analytics/dashboard/?days=30');
  });

  it('sends JSON with the bearer token when signed in', async () => {
    restoreGetter = setAccessTokenGetter(async () => 'token-123');
    const fetchMock = vi.fn(async () => jsonResponse({ ok: true }));
    vi.stubGlobal('fetch', fetchMock);

    await expect(api.patch('/auth/profile/', { a: 1 })).resolves.toEqual({ ok: true });

    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/auth/profile/');
    expect(init.method).toBe('PATCH');
    expect(init.body).toBe('{"a":1}');
    expect(init.headers).toMatchObject({ Authorization: 'Bearer token-123', 'Content-Type': 'application/json' });
  });

  it('sends no token when signed out, and refuses calls that require one', async () => {
    const fetchMock = vi.fn(async () => jsonResponse({}));
    vi.stubGlobal('fetch', fetchMock);

    await api.get('/config');
    const [, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(init.headers).not.toHaveProperty('Authorization');

    await expect(api.get('/auth/profile/', { auth: 'required' })).rejects.toThrow('No access token available');
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('turns error responses into ApiError with the server message', async () => {
    vi.stubGlobal('fetch', async () => jsonResponse({ code: 'invalid_param', message: 'user.username: too long', status: 400, params: 'user.username' }, 400));
    const error = await api.get('/x').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).message).toBe('user.username: too long');
    expect((error as ApiError).params).toBe('user.username');
  });

  it('only logs a 401', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.stubGlobal('fetch', async () => jsonResponse({ code: 'unauthorized', message: 'Unauthorized', status: 401 }, 401));
    await expect(api.get('/auth/profile/')).rejects.toMatchObject({ status: 401 });
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('Unauthorized: GET /api/auth/profile/'), expect.anything());
  });
});
