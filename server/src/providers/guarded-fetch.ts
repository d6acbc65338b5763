// The HTTP client for a creator's own OpenAI-compatible base URL (bring your own key): the same
// private-address rule as workflow provider URLs (workflows/safe-http.ts). The URL was checked when
// it was saved; here every connection is checked again on the address its name resolves to at that
// moment (DNS rebinding), and an IP literal before connecting. ALLOW_PRIVATE_PROVIDER_URLS turns it off.
import { isIP } from 'node:net';
import { AppError } from '../platform/errors.ts';
import { createPooledFetch } from './pooled-fetch.ts';
import type { FetchFunction } from './types.ts';
import { BlockedAddressError, guardedLookup, isPrivateAddress } from './workflows/safe-http.ts';

let shared: FetchFunction | null = null;

/** One guarded pool per process, created on first use. */
export function guardedFetch(): FetchFunction {
  if (shared) return shared;
  const viaGuard = createPooledFetch(guardedLookup);
  shared = async (input, init) => {
    const host = new URL(String(input)).hostname.replace(/^\[|\]$/g, '');
    try {
      if (isIP(host) && isPrivateAddress(host)) throw new BlockedAddressError(host);
      return await viaGuard(input, init);
    } catch (error) {
      // At call time it is the provider that cannot be reached, not a field of the caller's request.
      const blocked = error instanceof BlockedAddressError ? error : (error as { cause?: unknown }).cause;
      if (blocked instanceof BlockedAddressError) throw new AppError('provider_error', blocked.message, undefined, undefined, 'provider_url_blocked');
      throw error;
    }
  };
  return shared;
}
