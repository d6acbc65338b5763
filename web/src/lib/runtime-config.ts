// Runtime settings from GET /api/config, read once at start so settings change without a rebuild.
// Kept out of the query cache on purpose: signing out clears that cache, and these settings must stay.

import type { RuntimeConfig } from '@tollbooth/contract';
import { createContext, useContext } from 'react';
import { api } from './api-client';

export function fetchRuntimeConfig(): Promise<RuntimeConfig> {
  return api.get<RuntimeConfig>('/config', { auth: 'none' });
}

/** Sign-in needs at least an issuer and a client id. */
export function isAuthConfigured(config: RuntimeConfig | undefined): config is RuntimeConfig {
  return Boolean(config?.oidc?.issuer?.trim() && config.oidc.client_id?.trim());
}

export const RuntimeConfigContext = createContext<RuntimeConfig | null>(null);

export function useRuntimeConfig(): RuntimeConfig {
  const config = useContext(RuntimeConfigContext);
  if (!config) throw new Error('useRuntimeConfig must be used inside the app providers');
  return config;
}
