import { api } from '../../../lib/api-client';
import type { LogoutResponse } from '../../../types/api';

/** Ends the user's identity-provider sessions on the server (their refresh tokens stop working). */
export function endServerSessions(): Promise<LogoutResponse> {
  return api.post<LogoutResponse>('/auth/logout/', undefined, { auth: 'required' });
}
