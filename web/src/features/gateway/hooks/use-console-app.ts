import { useQuery } from '@tanstack/react-query';
import { appQueryOptions } from '@/lib/api/apps/get-app';
import { useAuth } from '@/lib/auth/use-auth';

/**
 * GET /api/app/{slug}/ for the slug in the console; nothing while the slug is empty. It waits for the
 * sign-in state to settle: asked anonymously, the owner's draft or private app would answer 404,
 * and that answer would be cached under the same key.
 */
export function useConsoleApp(slug: string) {
  const { status } = useAuth();
  return useQuery({ ...appQueryOptions(slug), enabled: slug !== '' && status !== 'loading' });
}
