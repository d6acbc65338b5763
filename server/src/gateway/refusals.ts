// The gateway's refusals that others name: the caller out of credits, the app it may not call, the
// rate limit it hit. gateway/service.ts re-exports them (a door names them through the gateway's service).
import type { AppRow } from '../apps/service.ts';
import type { AuthContext } from '../auth/plugin.ts';
import { AppError } from '../platform/errors.ts';
import type { RateLimitDecision } from '../platform/rate-limit.ts';

export const NO_CREDENTIALS = 'Authentication credentials were not provided: send Authorization: Bearer <API key>';

/** The 402 of a caller whose credits do not cover the call: it names the Money page, where credits are added. */
export function insufficientCredits(priceCents: number, publicUrl: string) {
  return new AppError(
    'insufficient_credits',
    `Not enough credits for this call (${priceCents} ${priceCents === 1 ? 'cent' : 'cents'}): add credits on the Money page, ${publicUrl}/money, and try again`,
  );
}

/** Owners may call any status; everyone else only live public or embed apps (a private app is not even there). */
export function checkCallAccess(app: AppRow, auth: AuthContext) {
  if (app.owner_id === auth.user.id) return;
  if (app.visibility === 'private') throw new AppError('not_found', 'Application not found');
  if (app.status !== 'live') throw new AppError('app_unavailable', 'This application is not live');
}

export class RateLimitedError extends AppError {
  constructor(readonly decision: RateLimitDecision) {
    super('rate_limited', `Rate limit of ${decision.limit} calls per minute exceeded; retry in ${decision.resetSeconds} s`);
  }
}
