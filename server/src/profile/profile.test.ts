import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test-support/app.ts';

let ctx: TestContext;
let token: string;
beforeAll(async () => {
  ctx = await createTestContext({ SIGNUP_CREDITS_CENTS: '750' });
  token = await ctx.tokenFor('ada', { email: 'ada@example.com', name: 'Ada Lovelace', given_name: 'Ada', family_name: 'Lovelace' });
});
afterAll(() => ctx?.close());

const call = (method: 'GET' | 'PATCH', url: string, payload?: unknown, bearer = token) =>
  ctx.app.inject({ method, url, headers: { authorization: `Bearer ${bearer}` }, ...(payload === undefined ? {} : { payload: payload as object }) });

describe('GET /api/auth/profile/', () => {
  it('answers the spec shape, with signup credits from SIGNUP_CREDITS_CENTS', async () => {
    const response = await call('GET', '/api/auth/profile/');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      user: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        username: 'ada',
        email: 'ada@example.com',
        first_name: 'Ada',
        last_name: 'Lovelace',
        display_name: 'Ada Lovelace',
        is_active: true,
        date_joined: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
      creator: { display_name: 'Ada Lovelace', plan: 'free', credits: 7.5, credits_cents: 750 },
    });
  });
});

describe('PATCH /api/auth/profile/', () => {
  it('updates names and username, echoing the rest of the user unchanged, and persists', async () => {
    const current = (await call('GET', '/api/auth/profile/')).json();
    const response = await call('PATCH', '/api/auth/profile/', {
      user: { ...current.user, first_name: 'Augusta', last_name: 'King', display_name: 'Countess', username: 'ada.king' },
      creator: { display_name: 'Countess' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().user).toMatchObject({
      first_name: 'Augusta',
      last_name: 'King',
      display_name: 'Countess',
      username: 'ada.king',
      email: 'ada@example.com',
    });
    expect(response.json().creator.display_name).toBe('Countess');
    const reread = (await call('GET', '/api/auth/profile/')).json();
    expect(reread.user.username).toBe('ada.king');
    expect(reread.creator.display_name).toBe('Countess');
  });

  it('accepts creator: null and leaves the creator profile alone', async () => {
    const response = await call('PATCH', '/api/auth/profile/', { user: { first_name: 'Ada' }, creator: null });
    expect(response.statusCode).toBe(200);
    expect(response.json().creator.display_name).toBe('Countess');
  });

  it('refuses to change the e-mail, naming the field', async () => {
    const response = await call('PATCH', '/api/auth/profile/', { user: { email: 'other@example.com' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_param', params: 'user.email', status: 400 });
    expect(response.json().message).toContain('Email cannot be changed');
  });

  it.each([
    [{ user: { first_name: 42 } }, 'user.first_name'],
    [{ user: { last_name: 'x'.repeat(151) } }, 'user.last_name'],
    [{ user: { display_name: 'x'.repeat(101) } }, 'user.display_name'],
    [{ user: { username: 'has spaces' } }, 'user.username'],
    [{ user: { username: 'x'.repeat(151) } }, 'user.username'],
    [{ user: { favourite_colour: 'blue' } }, 'user.favourite_colour'],
    [{ creator: { display_name: 7 } }, 'creator.display_name'],
  ])('answers 400 naming the field for %j', async (payload, field) => {
    const response = await call('PATCH', '/api/auth/profile/', payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_param', params: field });
    expect(response.json().message).toContain(field);
  });

  it('answers 400, not 500, for malformed JSON', async () => {
    const response = await ctx.app.inject({
      method: 'PATCH',
      url: '/api/auth/profile/',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: '{"user": ',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_param', status: 400 });
  });

  it('refuses a username another user holds, in any case', async () => {
    const other = await ctx.tokenFor('grace', { email: 'grace@example.com' });
    await call('GET', '/api/auth/profile/', undefined, other);
    const response = await call('PATCH', '/api/auth/profile/', { user: { username: 'ADA.KING' } }, other);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ params: 'user.username' });
  });
});

describe('/api/creators/', () => {
  it('reads and updates the signed-in creator', async () => {
    const me = await call('GET', '/api/creators/me/');
    expect(me.json()).toMatchObject({ plan: 'free', credits_cents: 750, credits: 7.5 });
    const updated = await call('PATCH', '/api/creators/me/', { display_name: 'Enchantress of Numbers' });
    expect(updated.statusCode).toBe(200);
    expect(updated.json().display_name).toBe('Enchantress of Numbers');
  });

  it('lists creators without private fields', async () => {
    const response = await call('GET', '/api/creators/?limit=10');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.count).toBeGreaterThanOrEqual(2);
    for (const creator of body.results) expect(Object.keys(creator).sort()).toEqual(['created_at', 'display_name', 'id']);
  });

  it('pages the directory by cursor, like every list, and keeps offset for a release', async () => {
    const first = await call('GET', '/api/creators/?limit=1');
    const body = first.json();
    expect(body.results).toHaveLength(1);
    expect(body.has_more).toBe(true);
    expect(first.headers['x-has-more']).toBe('true');
    expect(first.headers['x-next-cursor']).toBe(body.next_cursor);
    expect(first.headers.link).toContain('rel="next"');
    const second = (await call('GET', `/api/creators/?limit=1&cursor=${body.next_cursor}`)).json();
    expect(second.results[0].id).not.toBe(body.results[0].id);
    const everyone = (await call('GET', '/api/creators/?limit=100')).json();
    expect(everyone.results.slice(0, 2).map((creator: { id: string }) => creator.id)).toEqual([body.results[0].id, second.results[0].id]);
    expect(everyone.has_more).toBe(false);
    expect(everyone.next_cursor).toBeNull();
    const byOffset = await call('GET', '/api/creators/?limit=1&offset=1');
    expect(byOffset.headers.deprecation).toBe('true');
    expect(byOffset.json().results[0].id).toBe(second.results[0].id);
    const both = await call('GET', `/api/creators/?offset=1&cursor=${body.next_cursor}`);
    expect(both.statusCode).toBe(400);
    expect(both.json().params).toBe('offset');
    expect((await call('GET', '/api/creators/?cursor=nonsense')).json().params).toBe('cursor');
  });

  it('validates paging', async () => {
    const response = await call('GET', '/api/creators/?limit=1000');
    expect(response.statusCode).toBe(400);
    expect(response.json().params).toBe('limit');
  });
});
