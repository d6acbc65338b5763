import { useAuth } from '@/lib/auth/use-auth';
import { useProfile } from './get-profile';

/**
 * The signed-in user's name as the profile has it now (the display name, which the profile page can
 * change), falling back to the sign-in token's name and then the email. Null when signed out.
 */
export function useDisplayName(): string | null {
  const { status, user } = useAuth();
  const profile = useProfile({ enabled: status === 'authenticated' });
  if (status !== 'authenticated') return null;
  return profile.data?.user.display_name || profile.data?.creator?.display_name || user?.name || profile.data?.user.email || user?.email || null;
}
