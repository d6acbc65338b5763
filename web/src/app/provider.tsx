import { QueryClientProvider } from '@tanstack/react-query';
import type { RuntimeConfig } from '@tollbooth/contract';
import { type ReactNode, useEffect, useState } from 'react';
import { PageSpinner } from '../components/ui/spinner';
import { AuthNotConfigured } from '../features/auth/components/auth-not-configured';
import { AuthProvider } from '../features/auth/components/auth-provider';
import { preloadUserManager } from '../features/auth/lib/load-user-manager';
import { getErrorMessage } from '../lib/errors';
import { createQueryClient } from '../lib/query-client';
import { fetchRuntimeConfig, isAuthConfigured, RuntimeConfigContext } from '../lib/runtime-config';

type ConfigState = { status: 'loading' } | { status: 'ready'; config: RuntimeConfig } | { status: 'failed'; reason: string | null };

function useRuntimeConfigLoader(): ConfigState {
  const [state, setState] = useState<ConfigState>({ status: 'loading' });
  useEffect(() => {
    let active = true;
    // The identity client downloads while the settings load (the AuthProvider reports a failure).
    preloadUserManager().catch(() => undefined);
    fetchRuntimeConfig().then(
      (config) => {
        if (!active) return;
        setState(isAuthConfigured(config) ? { status: 'ready', config } : { status: 'failed', reason: null });
      },
      (error: unknown) => {
        console.error('Could not load /api/config', error);
        if (active) setState({ status: 'failed', reason: getErrorMessage(error) });
      },
    );
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
