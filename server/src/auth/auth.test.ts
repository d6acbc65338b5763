import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../db/client.ts';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import { expectLedgerBalanced } from '../test-support/ledger.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx?.close());

const profile = (token?: string) => ctx.app.inject({ method: 'GET', url: '/api/auth/profile/', headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('bearer verification', () => {
  it('answers 401 JSON without a token', async () => {
    const response = await profile();
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ code: 'unauthorized', message: expect.any(String), status: 401, request_id: response.headers['x-request-id'] });
    expect(response.headers['www-authenticate']).toBe('Bearer realm="api"');
  });

  it('answers 401 for a malformed token', async () => {
    const response = await profile('not-a-jwt');
    expect(response.statusCode).toBe(401);
    expect(response.json().code).toBe('unauthorized');
  });

  it('answers 401 for an expired token (beyond the 300 s clock tolerance)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await ctx.issuer.sign({ sub: 'expired' }, { expiresIn: now - 301 });
    expect((await profile(token)).statusCode).toBe(401);
  });

  it('accepts a token expired within the 300 s clock tolerance', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await ctx.issuer.sign({ sub: 'tolerated' }, { expiresIn: now - 200 });
    expect((await profile(token)).statusCode).toBe(200);
  });

  it('answers 401 for a token for another audience', async () => {
    const token = await ctx.issuer.sign({ sub: 'aud' }, { audience: 'https://other.example/api' });
    expect((await profile(token)).statusCode).toBe(401);
  });

  it('answers 401 for a token from another issuer', async () => {
    const token = await ctx.issuer.sign({ sub: 'iss' }, { issuer: 'https://evil.example' });
    expect((await profile(token)).statusCode).toBe(401);
  });

  it('answers 401 for a token signed with a key the issuer does not publish', async () => {
    const token = await ctx.issuer.sign({ sub: 'forged' }, { foreignKey: true });
    expect((await profile(token)).statusCode).toBe(401);
  });

  it('answers 401 for a token without exp', async () => {
    const token = await ctx.issuer.sign({ sub: 'no-exp' }, { expiresIn: null });
    expect((await profile(token)).statusCode).toBe(401);
  });

  it('answers 401 for a token issued in the future (beyond the 300 s tolerance), accepts one within it', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await profile(await ctx.issuer.sign({ sub: 'future' }, { issuedAt: now + 600, expiresIn: now + 3600 }))).statusCode).toBe(401);
    expect((await profile(await ctx.issuer.sign({ sub: 'skewed' }, { issuedAt: now + 200, expiresIn: now + 3600 }))).statusCode).toBe(200);
  });

  it('answers 401 for a JWT that is not an access token (typ JWT, as ID tokens are)', async () => {
    expect((await profile(await ctx.issuer.sign({ sub: 'id-token' }, { typ: 'JWT' }))).statusCode).toBe(401);
  });

  it('answers 401 for a sender-constrained token (DPoP cnf.jkt): its proof is not checked here, so it is not taken as a bearer token', async () => {
    const bound = await ctx.tokenFor('bound', { cnf: { jkt: 'k8mLcnmOoAUxmKIdsVvBVKLm4M0qUqmKWEeuLW3rJ5M' } });
    const response = await profile(bound);
    expect(response.statusCode).toBe(401);
    expect(response.json().message).toMatch(/DPoP/);
  });

  it('accepts a valid token', async () => {
    const response = await profile(await ctx.tokenFor('valid'));
    expect(response.statusCode).toBe(200);
  });
});

describe('first sight of a subject', () => {
  it('creates one user, one creator profile and one sign-up grant, even under concurrent first requests', async () => {
    const token = await ctx.tokenFor('newcomer', { email: 'newcomer@example.com', name: 'New Comer' });
    const responses = await Promise.all(Array.from({ length: 5 }, () => profile(token)));
    for (const response of responses) expect(response.statusCode).toBe(200);
    const body = responses[0]!.json();
    expect(body.user).toMatchObject({ email: 'newcomer@example.com', display_name: 'New Comer', username: 'newcomer', is_active: true });
    expect(body.creator).toEqual({ display_name: 'New Comer', plan: 'free', credits: 5, credits_cents: 500 });
    const { db } = ctx.database;
    const users = await db.query<{ count: number }>("SELECT count(*)::int AS count FROM users WHERE subject = 'newcomer'");
    expect(users.rows[0]!.count).toBe(1);
    const grants = await db.query<{ count: number }>("SELECT count(*)::int AS count FROM ledger_transactions WHERE kind = 'signup_grant' AND reference = $1", [
      `signup:${body.user.id}`,
    ]);
    expect(grants.rows[0]!.count).toBe(1);
  });

  it('keeps the ledger balanced: entries sum to zero and balances equal their entries', async () => {
    await expectLedgerBalanced(ctx.database.db);
  });

  it('refuses a statement that leaves a ledger transaction unbalanced, counting the entries earlier statements wrote', async () => {
    const { db } = ctx.database;
    const unbalanced = { code: '23514', message: expect.stringMatching(/does not balance/) };
    const accounts = (await db.query<{ id: string }>("SELECT id FROM ledger_accounts WHERE user_id IS NULL AND currency = 'usd' ORDER BY id LIMIT 2")).rows.map(
      (row) => row.id,
    );
    const entries = (values: string) => `INSERT INTO ledger_entries (transaction_id, account_id, amount_cents) VALUES ${values}`;
    const newTransactions = async (tx: Queryable, count: number) =>
      (await tx.query<{ id: string }>("INSERT INTO ledger_transactions (kind) SELECT 'test' FROM generate_series(1, $1::int) RETURNING id", [count])).rows.map(
        (row) => row.id,
      );
    const countBefore = (await db.query<{ n: string }>('SELECT count(*) AS n FROM ledger_entries')).rows[0]!.n;
    // One entry alone.
    await expect(
      db.transaction(async (tx) => {
        const [id] = await newTransactions(tx, 1);
        await tx.query(entries('($1, $2, 7)'), [id, accounts[0]]);
      }),
    ).rejects.toMatchObject(unbalanced);
    // A transaction's two halves written by two statements: the first is refused.
    await expect(
      db.transaction(async (tx) => {
        const [id] = await newTransactions(tx, 1);
        await tx.query(entries('($1, $2, 7)'), [id, accounts[0]]);
        await tx.query(entries('($1, $2, -7)'), [id, accounts[1]]);
      }),
    ).rejects.toMatchObject(unbalanced);
    // One statement of two transactions, one of them unbalanced (a settlement batch writes many).
    await expect(
      db.transaction(async (tx) => {
        const [a, b] = await newTransactions(tx, 2);
        await tx.query(entries('($1, $3, 7), ($1, $4, -7), ($2, $3, 5), ($2, $4, -4)'), [a, b, accounts[0], accounts[1]]);
      }),
    ).rejects.toMatchObject(unbalanced);
    // A later statement that adds a lone entry to a transaction checked already.
    await expect(
      db.transaction(async (tx) => {
        const [id] = await newTransactions(tx, 1);
        await tx.query(entries('($1, $2, 7), ($1, $3, -7)'), [id, accounts[0], accounts[1]]);
        await tx.query(entries('($1, $2, 1)'), [id, accounts[0]]);
      }),
    ).rejects.toMatchObject(unbalanced);
    expect((await db.query<{ n: string }>('SELECT count(*) AS n FROM ledger_entries')).rows[0]!.n).toBe(countBefore);
    // A balanced statement goes through, and so does one that adds a balanced pair to an earlier transaction.
    await db.transaction(async (tx) => {
      const [id] = await newTransactions(tx, 1);
      await tx.query(entries('($1, $2, 7), ($1, $3, -7)'), [id, accounts[0], accounts[1]]);
      await tx.query(entries('($1, $2, -3), ($1, $3, 3)'), [id, accounts[0], accounts[1]]);
      // Leave the balances as they were (the test ledger's accounts are checked against their entries).
      await tx.query(entries('($1, $2, -4), ($1, $3, 4)'), [id, accounts[0], accounts[1]]);
    });
  });

  it('gives distinct usernames to new users who arrive at the same instant with the same e-mail name', async () => {
    const tokens = await Promise.all(Array.from({ length: 4 }, (_, i) => ctx.tokenFor(`rush-${i}`, { email: `rush@example-${i}.com` })));
    const responses = await Promise.all(tokens.map((token) => profile(token)));
    for (const response of responses) expect(response.statusCode).toBe(200);
    const usernames = responses.map((response) => response.json().user.username).sort();
    expect(usernames).toEqual(['rush', 'rush2', 'rush3', 'rush4']);
  });

  it('gives usernames that do not collide', async () => {
    const a = (await profile(await ctx.tokenFor('twin-a', { email: 'twin@example.com' }))).json();
    const b = (await profile(await ctx.tokenFor('twin-b', { email: 'twin@example.org' }))).json();
    expect(a.user.username).toBe('twin');
    expect(b.user.username).toBe('twin2');
  });
});

describe('sign-in helpers and roles', () => {
  it('tells where to start sign-in and sign-up', async () => {
    const login = await ctx.app.inject({ method: 'POST', url: '/api/auth/login/' });
    expect(login.statusCode).toBe(200);
    expect(login.json()).toMatchObject({ issuer: ctx.issuer.issuer, client_id: 'test-client', prompt: 'login' });
    const register = await ctx.app.inject({ method: 'POST', url: '/api/auth/register/' });
    expect(register.json().prompt).toBe('create');
  });

  it('lists roles of the signed-in user', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/api/auth/roles/', headers: { authorization: `Bearer ${await ctx.tokenFor('roles')}` } });
    expect(response.json()).toEqual({ roles: ['user', 'creator'] });
  });

  it('requires a token to log out', async () => {
    expect((await ctx.app.inject({ method: 'POST', url: '/api/auth/logout/' })).statusCode).toBe(401);
    const response = await ctx.app.inject({ method: 'POST', url: '/api/auth/logout/', headers: { authorization: `Bearer ${await ctx.tokenFor('bye')}` } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ end_session_endpoint: null });
  });
});
