import { QueryClientProvider } from '@tanstack/react-query';
import type { RuntimeConfig } from '@tollbooth/contract';
import { type ReactNode, startTransition, useEffect, useState } from 'react';
import { PageSpinner } from '../components/ui/spinner';
import { AuthNotConfigured } from '../features/auth/components/auth-not-configured';
import { AuthProvider } from '../features/auth/components/auth-provider';
import { preloadUserManager } from '../features/auth/lib/load-user-manager';
import { getErrorMessage } from '../lib/errors';
import { createQueryClient } from '../lib/query-client';
import { fetchRuntimeConfig, isAuthConfigured, RuntimeConfigContext } from '../lib/runtime-config';

type ConfigState = { status: 'loading' } | { status: 'ready'; config: RuntimeConfig } | { status: 'failed'; reason: string | null };

function answerToState(config: RuntimeConfig): ConfigState {
  return isAuthConfigured(config) ? { status: 'ready', config } : { status: 'failed', reason: null };
}

function errorToState(error: unknown): ConfigState {
  console.error('Could not load /api/config', error);
  return { status: 'failed', reason: getErrorMessage(error) };
}

/** The settings request main.tsx starts before the first render, and its outcome once known. */
let early: { answer: Promise<ConfigState>; state: ConfigState | null } | null = null;

/**
 * Asks for GET /api/config before the app renders (main.tsx), so the answer is on its way while
 * React starts; the AppProvider takes this answer instead of asking again.
 */
export function preloadRuntimeConfig(): Promise<ConfigState> {
  const answer = fetchRuntimeConfig().then(answerToState, errorToState);
  const entry: NonNullable<typeof early> = { answer, state: null };
  void answer.then((state) => {
    entry.state = state;
  });
  early = entry;
  return answer;
}

function useRuntimeConfigLoader(): ConfigState {
  // Only a provider mounted after main.tsx's request has answered starts with the settings.
  const [state, setState] = useState<ConfigState>(() => early?.state ?? { status: 'loading' });
  useEffect(() => {
    let active = true;
    // The identity client downloads while the settings load (the AuthProvider reports a failure).
    preloadUserManager().catch(() => undefined);
    (early?.answer ?? fetchRuntimeConfig().then(answerToState, errorToState)).then((next) => {
      // The whole app mounts on this update: as a transition React renders it in slices and lets
      // the browser run between them, instead of one long task (Total Blocking Time on a slow phone).
      if (active) startTransition(() => setState(next));
    });
    return () => {
      active = false;
    };
  }, []);
  return state;
}

/** Query cache, runtime settings and sign-in state for everything below. Must sit inside the router. */
export function AppProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(createQueryClient);
  const config = useRuntimeConfigLoader();

  if (config.status === 'loading') return <PageSpinner message="Loading..." />;
  if (config.status === 'failed') return <AuthNotConfigured reason={config.reason} />;

  return (
    <QueryClientProvider client={queryClient}>
      <RuntimeConfigContext.Provider value={config.config}>
        <AuthProvider oidc={config.config.oidc}>{children}</AuthProvider>
      </RuntimeConfigContext.Provider>
    </QueryClientProvider>
  );
}
