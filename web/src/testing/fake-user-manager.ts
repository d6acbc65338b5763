// A stand-in for oidc-client-ts's UserManager: same methods and events, no network, no redirects.
import { User, type UserManager } from 'oidc-client-ts';
import { vi } from 'vitest';

type Listener = (...args: unknown[]) => unknown;
type EventName = 'loaded' | 'unloaded' | 'silentRenewError' | 'accessTokenExpired';

export function makeUser({ expired = false, refreshToken = 'refresh-1', accessToken = 'access-1' } = {}): User {
  const now = Math.floor(Date.now() / 1000);
  return new User({
    access_token: accessToken,
    refresh_token: refreshToken,
    token_type: 'Bearer',
    profile: {
      sub: 'user-1',
      iss: 'http://localhost:3000/oidc',
      aud: 'tollbooth-web',
      exp: now + 3600,
      iat: now,
      email: 'ada@example.com',
      name: 'Ada Lovelace',
    },
    expires_at: expired ? now - 10 : now + 3600,
  });
}

export function createFakeUserManager(initialUser: User | null = null) {
  const listeners: Record<EventName, Set<Listener>> = {
    loaded: new Set(),
    unloaded: new Set(),
    silentRenewError: new Set(),
    accessTokenExpired: new Set(),
  };
  const on = (name: EventName) => (listener: Listener) => {
    listeners[name].add(listener);
    return () => listeners[name].delete(listener);
  };
  const state = { stored: initialUser };

  const manager = {
    getUser: vi.fn(async () => state.stored),
    removeUser: vi.fn(async () => {
      state.stored = null;
      for (const listener of listeners.unloaded) listener();
    }),
    signinRedirect: vi.fn(async () => {}),
    signinRedirectCallback: vi.fn(async () => {
      const user = makeUser();
      state.stored = user;
      for (const listener of listeners.loaded) listener(user);
      return user;
    }),
    signinSilent: vi.fn(async (): Promise<User | null> => null),
    signoutRedirect: vi.fn(async () => {
      await manager.removeUser();
    }),
    stopSilentRenew: vi.fn(),
    events: {
      addUserLoaded: on('loaded'),
      addUserUnloaded: on('unloaded'),
      addSilentRenewError: on('silentRenewError'),
      addAccessTokenExpired: on('accessTokenExpired'),
    },
  };

  async function emit(name: EventName, ...args: unknown[]) {
    for (const listener of listeners[name]) await listener(...args);
  }

  return { manager, userManager: manager as unknown as UserManager, state, emit };
}
