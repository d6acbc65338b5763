// Settings whose values have a format of their own (on/off words, TRUST_PROXY, ADMIN_EMAILS,
// SMTP_URL), parsed for config.ts; each adds a line naming the variable to `problems` when it is off.

/** The words an on/off setting accepts. */
export const TRUE_VALUES = ['1', 'true', 'on', 'yes'];
export const FALSE_VALUES = ['0', 'false', 'off', 'no'];

/** TRUST_PROXY: off (default), on (every hop), a hop count, or comma-separated addresses and CIDR ranges. */
export function parseTrustProxy(raw: string | null, problems: string[]): boolean | number | string[] {
  if (raw === null || ['0', 'false', 'off', 'no'].includes(raw.toLowerCase())) return false;
  if (['true', 'on', 'yes'].includes(raw.toLowerCase())) return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (
    entries.length === 0 ||
    entries.some((entry) => !/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(entry) && !['loopback', 'linklocal', 'uniquelocal'].includes(entry))
  ) {
    problems.push(`TRUST_PROXY must be off, on, a hop count or comma-separated IP addresses/CIDR ranges (got "${raw}")`);
    return false;
  }
  return entries;
}

/** ADMIN_EMAILS: comma-separated addresses, compared case-insensitively (kept lower-cased). */
export function parseAdminEmails(raw: string | null, problems: string[]): string[] {
  if (raw === null) return [];
  const emails = raw
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
  const invalid = emails.filter((email) => !/^[^\s@]+@[^\s@]+$/.test(email));
  if (invalid.length > 0) problems.push(`ADMIN_EMAILS must be comma-separated email addresses (not ${invalid.map((e) => `"${e}"`).join(', ')})`);
  return [...new Set(emails)];
}

export function parseSmtpUrl(raw: string | null, problems: string[]): string | null {
  if (raw === null) return null;
  try {
    if (/^smtps?:$/.test(new URL(raw).protocol)) return raw;
  } catch {}
  problems.push('SMTP_URL must be an smtp:// or smtps:// URL');
  return null;
}
