import type { LogoutResult } from '@tollbooth/contract';
import { api } from '@/lib/api-client';

/** Ends the user's identity-provider sessions on the server (their refresh tokens stop working). */
export function endServerSessions(): Promise<LogoutResult> {
  return api.post<LogoutResult>('/auth/logout/', undefined, { auth: 'required' });
}
