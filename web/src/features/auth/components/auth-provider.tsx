// Holds the sign-in state, keeps tokens fresh, and clears every cached query when the user signs
// out or loses their session, so no data of one account is ever shown to the next.
import { useQueryClient } from '@tanstack/react-query';
import type { User, UserManager } from 'oidc-client-ts';
import { type ReactNode, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { setAccessTokenGetter } from '@/lib/api-client';
import { AuthContext, type AuthContextValue, type AuthStatus, type AuthUser } from '@/lib/auth/auth-context';
import { endServerSessions } from '../api/logout';
import { clearIntendedPath } from '../lib/intended-path';
import { loadUserManager } from '../lib/load-user-manager';
import { describeSignInError, SIGN_IN_FAILED_MESSAGE, SIGN_OUT_FAILED_MESSAGE } from '../lib/sign-in-errors';
import { readStoredSession, type StoredSession } from '../lib/stored-session';
import type { OidcConfig } from '../lib/user-manager';

interface AuthProviderProps {
  oidc: OidcConfig;
  /** Tests pass a fake; the app loads the identity client and uses its shared instance for this configuration. */
  userManager?: UserManager;
  children: ReactNode;
}

interface SessionState {
  status: AuthStatus;
  /** oidc-client-ts's User, or the stored session read before the identity client loaded. */
  user: User | StoredSession | null;
}

export function toAuthUser(user: Pick<User, 'profile'>): AuthUser {
  const claims = user.profile;
  const joinedName = [claims.given_name, claims.family_name].filter(Boolean).join(' ');
  return {
    id: claims.sub,
    email: claims.email ?? null,
    name: claims.name || joinedName || claims.preferred_username || null,
  };
}

export function AuthProvider({ oidc, userManager: injectedManager, children }: AuthProviderProps) {
  // The identity client loads on demand: actions wait for it, effects start once it is there.
  const managerReady = useMemo(() => (injectedManager ? Promise.resolve(injectedManager) : loadUserManager(oidc)), [injectedManager, oidc]);
  const [userManager, setUserManager] = useState<UserManager | null>(injectedManager ?? null);
  const managerLoaded = useRef(userManager !== null);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  // A stored, unexpired session renders signed in at once; the identity client confirms it when it
  // has loaded (the restore effect below) and handles an expired one as before.
  const [initialSession] = useState(() => readStoredSession(oidc));
  const [session, setSession] = useState<SessionState>(() =>
    initialSession ? { status: 'authenticated', user: initialSession } : { status: 'loading', user: null },
  );
  const [error, setError] = useState<string | null>(null);
  // While the browser is on its way to the provider's end-session page, show neither the signed-in
  // nor the signed-out screens (avoids a flash of the landing page and clicks that race the redirect).
  const [signingOut, setSigningOut] = useState(false);
  const renewal = useRef<Promise<User | null> | null>(null);
  // Set once an event or the callback has decided the state, so the slower initial read cannot undo it.
  const settled = useRef(false);
  const currentUser = useRef<Pick<User, 'access_token'> | null>(initialSession);

  useEffect(() => {
    let active = true;
    managerReady.then(
      (manager) => {
        managerLoaded.current = true;
        if (active) setUserManager(manager);
      },
      (loadError: unknown) => {
        console.error('Could not load the identity client', loadError);
        if (active) {
          setSession({ status: 'unauthenticated', user: null });
          setError(SIGN_IN_FAILED_MESSAGE);
        }
      },
    );
    return () => {
      active = false;
    };
  }, [managerReady]);

  const applyUser = useCallback((user: User | null) => {
    settled.current = true;
    const valid = user && !user.expired ? user : null;
    const unchanged = valid !== null && currentUser.current?.access_token === valid.access_token;
    currentUser.current = valid;
    // The identity client restoring the session the page already shows (read from storage) changes
    // nothing on screen: no second render of every signed-in component.
    if (unchanged) setSession((previous) => (previous.status === 'authenticated' ? previous : { status: 'authenticated', user: valid }));
    else setSession(valid ? { status: 'authenticated', user: valid } : { status: 'unauthenticated', user: null });
  }, []);

  const forgetSession = useCallback(() => {
    settled.current = true;
    currentUser.current = null;
    queryClient.clear();
    setSession({ status: 'unauthenticated', user: null });
  }, [queryClient]);

  /** One refresh at a time, however many requests find the token expired together. */
  const renewSession = useCallback((): Promise<User | null> => {
    if (!renewal.current) {
      renewal.current = managerReady
        .then((manager) => manager.signinSilent())
        .finally(() => {
          renewal.current = null;
        });
    }
    return renewal.current;
  }, [managerReady]);

  const dropSession = useCallback(async () => {
    try {
      await (await managerReady).removeUser();
    } catch (removeError) {
      console.warn('Could not remove the stored session', removeError);
    }
    forgetSession();
  }, [managerReady, forgetSession]);

  const getAccessToken = useCallback(async (): Promise<string | null> => {
    // Until the identity client is there, an unexpired stored token is the one it would return.
    if (!managerLoaded.current) {
      const stored = readStoredSession(oidc);
      if (stored) return stored.access_token;
    }
    let user = await (await managerReady).getUser();
    if (!user) return null;
    if (user.expired) {
      try {
        user = user.refresh_token ? await renewSession() : null;
      } catch (renewError) {
        console.warn('Session renewal failed', renewError);
        user = null;
      }
      if (!user) {
        await dropSession();
        return null;
      }
    }
    return user.access_token;
  }, [oidc, managerReady, renewSession, dropSession]);

  // A layout effect: it runs before any passive effect of the same commit, so pages that mount with
  // this provider (a stored session renders them at once) send their first requests with the token
  // rather than failing without one and retrying a second later.
  useLayoutEffect(() => setAccessTokenGetter(getAccessToken), [getAccessToken]);

  // Restore the stored session, renewing it first when its access token has expired.
  useEffect(() => {
    if (!userManager) return;
    let active = true;
    (async () => {
      let user: User | null = null;
      try {
        user = await userManager.getUser();
        if (user?.expired) {
          user = user.refresh_token ? await renewSession().catch(() => null) : null;
          if (!user) await userManager.removeUser();
        }
      } catch (loadError) {
        console.error('Could not restore the session', loadError);
        user = null;
      }
      if (active && !settled.current) applyUser(user);
    })();
    return () => {
      active = false;
    };
  }, [userManager, renewSession, applyUser]);

  useEffect(() => {
    if (!userManager) return;
    const { events } = userManager;
    const unsubscribe = [
      events.addUserLoaded((user) => {
        applyUser(user);
        setError(null);
      }),
      events.addUserUnloaded(() => forgetSession()),
      events.addSilentRenewError(async (renewError) => {
        console.warn('Session renewal failed', renewError);
        // Another tab may have renewed the shared session in the meantime.
        const stored = await userManager.getUser().catch(() => null);
        if (stored && !stored.expired && stored.access_token !== currentUser.current?.access_token) {
          applyUser(stored);
          return;
        }
        await dropSession();
      }),
      events.addAccessTokenExpired(async () => {
        const stored = await userManager.getUser().catch(() => null);
        if (stored && !stored.expired) return applyUser(stored);
        try {
          const renewed = stored?.refresh_token ? await renewSession() : null;
          if (renewed) return;
        } catch (renewError) {
          console.warn('Session renewal failed', renewError);
        }
        await dropSession();
      }),
    ];
    return () => {
      for (const remove of unsubscribe) remove();
    };
  }, [userManager, applyUser, forgetSession, dropSession, renewSession]);

  const signIn = useCallback<AuthContextValue['signIn']>(
    async ({ signUp = false } = {}) => {
      setError(null);
      try {
        await (await managerReady).signinRedirect(signUp ? { prompt: 'create' } : undefined);
        return true;
      } catch (signInError) {
        console.error(SIGN_IN_FAILED_MESSAGE, signInError);
        setError(describeSignInError(signInError));
        return false;
      }
    },
    [managerReady],
  );

  const completeSignIn = useCallback<AuthContextValue['completeSignIn']>(
    async (url) => {
      try {
        const user = await (await managerReady).signinRedirectCallback(url);
        setError(null);
        applyUser(user);
      } catch (callbackError) {
        console.error(SIGN_IN_FAILED_MESSAGE, callbackError);
        setError(describeSignInError(callbackError));
        throw callbackError;
      }
    },
    [managerReady, applyUser],
  );

  const signOut = useCallback(async () => {
    setSigningOut(true);
    try {
      await endServerSessions();
    } catch (logoutError) {
      // The provider redirect below still ends the browser session.
      console.warn('Could not end the server-side sessions', logoutError);
    }
    queryClient.clear();
    clearIntendedPath();
    // Leave protected pages first, so their guards do not send the user to /login on the way out.
    navigate('/', { replace: true });
    try {
      await (await managerReady).signoutRedirect();
    } catch (signOutError) {
      console.error(SIGN_OUT_FAILED_MESSAGE, signOutError);
      try {
        await (await managerReady).removeUser();
      } catch (removeError) {
        console.error(SIGN_OUT_FAILED_MESSAGE, removeError);
        setError(SIGN_OUT_FAILED_MESSAGE);
      }
      forgetSession();
      setSigningOut(false);
    }
  }, [managerReady, queryClient, navigate, forgetSession]);

  const value = useMemo<AuthContextValue>(
    () => ({
      status: signingOut ? 'loading' : session.status,
      user: session.user ? toAuthUser(session.user) : null,
      error,
      providerName: oidc.provider_name?.trim() || 'your identity provider',
      signIn,
      completeSignIn,
      signOut,
      getAccessToken,
    }),
    [session, signingOut, error, oidc.provider_name, signIn, completeSignIn, signOut, getAccessToken],
  );

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
