import { describe, expect, it } from 'vitest';
import { makeUser } from '@/testing/fake-user-manager';
import { testRuntimeConfig } from '@/testing/test-utils';
import { readStoredSession, storedSessionKey } from './stored-session';
import { createUserManager } from './user-manager';

const { oidc } = testRuntimeConfig;

describe('readStoredSession', () => {
  it('reads the session where oidc-client-ts stores it, in the form it stores it', async () => {
    const manager = createUserManager(oidc, 'http://localhost:3000');
    await manager.storeUser(makeUser({ accessToken: 'access-stored' }));
    expect(window.localStorage.getItem(storedSessionKey(oidc))).not.toBeNull();

    const session = readStoredSession(oidc);
    expect(session?.access_token).toBe('access-stored');
    expect(session?.profile.name).toBe('Ada Lovelace');
    // And the library reads back the same user.
    expect((await manager.getUser())?.access_token).toBe('access-stored');
  });

  it('leaves an expired session to the identity client, like its own `expired` rule', async () => {
    const manager = createUserManager(oidc, 'http://localhost:3000');
    const user = makeUser();
    await manager.storeUser(user);
    const expiresAt = (user.expires_at as number) * 1000;
    expect(readStoredSession(oidc, expiresAt - 1000)).not.toBeNull();
    expect(readStoredSession(oidc, expiresAt)).toBeNull();
    expect(readStoredSession(oidc, expiresAt + 5000)).toBeNull();
  });

  it('is null without a session, for another client, or for data it cannot read', () => {
    expect(readStoredSession(oidc)).toBeNull();
    window.localStorage.setItem(storedSessionKey({ ...oidc, client_id: 'other' }), makeUser().toStorageString());
    expect(readStoredSession(oidc)).toBeNull();
    for (const text of [
      'not json',
      'null',
      '{}',
      '{"access_token":"","profile":{}}',
      '{"access_token":"a"}',
      '{"access_token":"a","profile":{},"expires_at":"soon"}',
    ]) {
      window.localStorage.setItem(storedSessionKey(oidc), text);
      expect(readStoredSession(oidc), text).toBeNull();
    }
    window.localStorage.setItem(storedSessionKey(oidc), '{"access_token":"a","profile":{"sub":"u"}}');
    expect(readStoredSession(oidc)?.access_token).toBe('a');
  });
});
