// UTC days for tests that seed rows into the daily rollups: today's start and the days before it.

export const DAY_MS = 86_400_000;

/** The start of today (UTC), in milliseconds. */
export const todayStart = () => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
};

/** The ISO day `ago` days before today (UTC). */
export const isoDay = (ago: number) => new Date(todayStart() - ago * DAY_MS).toISOString().slice(0, 10);

/** For a dataset laid out relative to today: within 15 seconds of midnight UTC, waits for the new day first. */
export async function awayFromMidnight(): Promise<void> {
  const untilMidnight = todayStart() + DAY_MS - Date.now();
  if (untilMidnight < 15_000) await new Promise((resolve) => setTimeout(resolve, untilMidnight + 100));
}
