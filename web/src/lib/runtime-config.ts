// Runtime settings from GET /api/config, read once at start so settings change without a rebuild.
// Kept out of the query cache on purpose: signing out clears that cache, and these settings must stay.
import { createContext, useContext } from 'react';
import { api } from './api-client';

/**
 * GET /api/config. Until contract/src/system.ts lands (issue 9 item 1, server half) this is the
 * web's last hand-written API shape; it then becomes `Static<typeof RuntimeConfig>` from the contract.
 */
export interface RuntimeConfig {
  product_name: string;
  oidc: {
    issuer: string;
    client_id: string;
    audience: string;
    provider_name: string;
    embedded: boolean;
    scopes: string;
  };
  stripe_publishable_key: string | null;
  public_url: string;
}

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
