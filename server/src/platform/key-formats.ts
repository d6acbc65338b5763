// The shapes of Tollbooth's keys, which authentication reads to tell a key from an access token and
// the keys feature makes and checks: tb_ (secret API key) or pk_ (publishable key) and 43 base62
// characters (32 random bytes).
const API_KEY_PATTERN = /^tb_[0-9A-Za-z]{43}$/;
const PUBLISHABLE_KEY_PATTERN = /^pk_[0-9A-Za-z]{43}$/;

/** Whether a bearer token has the shape of a Tollbooth API key (rather than an access token). */
export function looksLikeApiKey(token: string): boolean {
  return API_KEY_PATTERN.test(token);
}

/** Whether a token has the shape of a publishable key (pk_…). */
export function looksLikePublishableKey(token: string): boolean {
  return PUBLISHABLE_KEY_PATTERN.test(token);
}
