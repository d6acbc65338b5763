// oidc-client-ts (about 16 KiB gzip) is not in the first bundle: the app starts fetching it at once,
// beside /api/config, and the sign-in state stays "loading" until it is there
// (docs/decisions/0020-web-delivery.md).
import type { UserManager } from 'oidc-client-ts';
import type { OidcConfig } from './user-manager';

let loading: Promise<typeof import('./user-manager')> | null = null;

/** Starts loading the identity client; later calls share the same download. */
export function preloadUserManager(): Promise<typeof import('./user-manager')> {
  loading ??= import('./user-manager');
  return loading;
}

/** The shared UserManager for this configuration, once the identity client has loaded. */
export async function loadUserManager(oidc: OidcConfig): Promise<UserManager> {
  const { getUserManager } = await preloadUserManager();
  return getUserManager(oidc);
}
