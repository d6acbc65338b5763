/** Reads until the answer is not null (every 50 ms, `attempts` times at most), for what another part of the server writes after the answer. */
export const waitFor = async <T>(read: () => Promise<T | null> | T | null, attempts = 100): Promise<T> => {
  for (let i = 0; i < attempts; i++) {
    const value = await read();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('timed out waiting');
};

/**
 * Every call reserves its worst-case model cost from its creator's earnings (issue 60 item 8), in a
 * lease that serves several calls and is released once idle (about a second): waits until none of
 * the creator's dollar earnings are held, as a withdrawal a moment later would see them.
 */
export const earningsReleased = (sql: (text: string, params: unknown[]) => Promise<{ held: string | number }[]>, userId: string) =>
  waitFor(async () => {
    const [row] = await sql("SELECT held_cents AS held FROM ledger_accounts WHERE kind = 'creator_earnings' AND user_id = $1 AND currency = 'usd'", [userId]);
    return Number(row?.held ?? 0) === 0 ? true : null;
  }, 200);

/**
 * The rate limiter's windows are clock minutes: a test that counts calls up to a per-minute limit and
 * expects the next one refused starts with at least `needMs` of the current minute left (else it
 * waits for the next minute), so no window turns in the middle of it.
 */
export async function aFreshMinute(needMs = 15_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
