// One oidc-client-ts UserManager per identity-provider configuration. It lives outside React so
// StrictMode's double rendering cannot create a second instance that renews tokens on its own.

import type { RuntimeConfig } from '@tollbooth/contract';
import { UserManager, WebStorageStateStore } from 'oidc-client-ts';

export type OidcConfig = RuntimeConfig['oidc'];

const DEFAULT_SCOPES = 'openid profile email offline_access';

let cached: { key: string; manager: UserManager } | null = null;

export function createUserManager(oidc: OidcConfig, origin = window.location.origin): UserManager {
  // Asking for the API as the resource makes external issuers (Logto and others) issue a JWT for it.
  const resource = oidc.audience ? { resource: oidc.audience } : undefined;
  return new UserManager({
    authority: oidc.issuer,
    client_id: oidc.client_id,
    redirect_uri: `${origin}/auth/callback`,
    post_logout_redirect_uri: `${origin}/`,
    response_type: 'code',
    scope: oidc.scopes?.trim() || DEFAULT_SCOPES,
    extraQueryParams: resource,
    extraTokenParams: resource,
    userStore: new WebStorageStateStore({ store: window.localStorage }),
    // Renews with the refresh token (offline_access) shortly before the access token expires.
    automaticSilentRenew: true,
  });
}

export function getUserManager(oidc: OidcConfig): UserManager {
  const key = JSON.stringify([oidc.issuer, oidc.client_id, oidc.audience, oidc.scopes]);
  if (cached?.key !== key) {
    cached?.manager.stopSilentRenew();
    cached = { key, manager: createUserManager(oidc) };
  }
  return cached.manager;
}
