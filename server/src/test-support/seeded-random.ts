// Seeded randomness for the tests that draw a random series of calls: a failure names its seed and
// replays with ANALYTICS_SEED=<seed>.

/** mulberry32: a small seeded generator, so a failure can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The seed of this run: ANALYTICS_SEED when set, else one drawn from the clock. */
export const ANALYTICS_SEED = Number(process.env.ANALYTICS_SEED ?? Date.now() % 1_000_000);
