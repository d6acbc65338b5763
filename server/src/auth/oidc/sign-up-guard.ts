// Sign-ups mint credits, so they are limited: per client address and overall, per hour (shared
// through Redis when REDIS_URL is set, else through the database). Without SMTP_URL the accounts
// created count (and refused sign-ups with a taken email); with it, every sign-up form accepted
// counts, for a new email and a taken one alike, since each sends a mail.
import type { Queryable } from '../../db/client.ts';
import { createWindowCounter } from './sign-in-guard.ts';

const HOUR_MS = 60 * 60_000;

export function createSignUpGuard(options: { redisUrl: string | null; db?: Queryable; perAddressPerHour: number; perHour: number }) {
  const counter = createWindowCounter(options.redisUrl, 'signups', options.db);
  return {
    /** False when the address or the whole server reached its sign-ups for this hour. */
    async allowed(address: string): Promise<boolean> {
      const [fromAddress, overall] = await Promise.all([counter.count(`address:${address}`), counter.count('all')]);
      return fromAddress < options.perAddressPerHour && overall < options.perHour;
    },
    async recordSignUp(address: string) {
      await Promise.all([counter.add(`address:${address}`, HOUR_MS), counter.add('all', HOUR_MS)]);
    },
    close: () => counter.close(),
  };
}
