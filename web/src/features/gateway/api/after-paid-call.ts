import type { QueryClient } from '@tanstack/react-query';
import { apiKeyKeys } from '@/lib/api/keys/api-key-keys';
import { profileQueryKey } from '@/lib/api/profile/get-profile';

/** A call may have moved credits (shown on the profile) and a key's spend and last use. */
export function refreshAfterCall(queryClient: QueryClient): Promise<void> {
  return Promise.all([queryClient.invalidateQueries({ queryKey: profileQueryKey }), queryClient.invalidateQueries({ queryKey: apiKeyKeys.all })]).then(
    () => undefined,
  );
}
