import { createContext } from 'react';

export type AuthStatus = 'loading' | 'authenticated' | 'unauthenticated';

/** The signed-in user as the ID token describes them. */
export interface AuthUser {
  id: string;
  email: string | null;
  /** Full name, or given + family name, or preferred username; null when the provider sends none. */
  name: string | null;
}

export interface AuthContextValue {
  status: AuthStatus;
  user: AuthUser | null;
  /** The last sign-in or sign-out failure in words a user can read. */
  error: string | null;
  /** Shown on the sign-in button: "Sign in with {providerName}". */
  providerName: string;
  /** Redirects to the identity provider (its sign-up page when signUp is set). Resolves false when that failed. */
  signIn(options?: { signUp?: boolean }): Promise<boolean>;
  /** Finishes the authorization-code exchange on /auth/callback. */
  completeSignIn(url?: string): Promise<void>;
  signOut(): Promise<void>;
  /** A valid access token (renewed first when expired), or null when signed out. */
  getAccessToken(): Promise<string | null>;
}

export const AuthContext = createContext<AuthContextValue | null>(null);
