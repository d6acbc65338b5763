// Rate cards for the screens' tests (issue 60): a per-token card with nothing else on it unless
// the test says, so each test names only the prices it is about.
import type { RateCard } from '@tollbooth/contract';

const NOTHING_ELSE = { call_micros: 0, cached_input_per_mtok_micros: null, markup_bps: 0, minimum_micros: 0, max_call_micros: null };

export function perTokenCard(overrides: Partial<RateCard> = {}): RateCard {
  return { form: 'per_token', input_per_mtok_micros: 0, output_per_mtok_micros: 0, ...NOTHING_ELSE, ...overrides };
}
