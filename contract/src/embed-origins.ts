// Issue 61, trap 4: a publishable key works only on its websites' exact origins (scheme, host and
// port), and the near misses are what trip people up: `www.` or not, another port, `localhost` vs
// `127.0.0.1`, http vs https. Once for server and web: the widget's check names the near miss to
// the site owner (in the browser console), and the key page hints at each origin's neighbours.

/** The origin of a page, or null when `value` is not a URL with one. */
export function originOf(value: string): string | null {
  try {
    const url = new URL(value);
    return url.origin === 'null' ? null : url.origin;
  } catch {
    return null;
  }
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why `origin` is not one of `allowed` when it nearly is: one sentence per near miss. */
export function originNearMisses(origin: string, allowed: readonly string[]): string[] {
  let page: URL;
  try {
    page = new URL(origin);
  } catch {
    return [];
  }
  const hints: string[] = [];
  for (const entry of allowed) {
    let listed: URL;
    try {
      listed = new URL(entry);
    } catch {
      continue;
    }
    const bare = (host: string) => host.replace(/^www\./, '');
    const sameHost = listed.hostname === page.hostname;
    if (!sameHost && bare(listed.hostname) === bare(page.hostname) && listed.protocol === page.protocol && listed.port === page.port) {
      hints.push(`${entry} is listed, but this page is ${origin}: "www." counts, so list both if the site answers on both.`);
    } else if (sameHost && listed.protocol === page.protocol && listed.port !== page.port) {
      hints.push(`${entry} is listed, but this page is ${origin}: the port counts, so list ${origin} too.`);
    } else if (sameHost && listed.protocol !== page.protocol) {
      hints.push(`${entry} is listed, but this page is ${origin}: http and https are different origins.`);
    } else if (!sameHost && LOOPBACK.has(listed.hostname) && LOOPBACK.has(page.hostname) && listed.port === page.port) {
      hints.push(`${entry} is listed, but this page is ${origin}: localhost and 127.0.0.1 are different origins to a browser.`);
    }
  }
  return hints;
}

/** The key page's hint for one listed origin: what else the browser may send for the same site. */
export function originHint(entry: string): string | null {
  let listed: URL;
  try {
    listed = new URL(entry);
  } catch {
    return null;
  }
  const host = listed.hostname;
  if (LOOPBACK.has(host)) {
    const other = host === 'localhost' ? '127.0.0.1' : 'localhost';
    return `Only this port; ${listed.protocol}//${other}${listed.port ? `:${listed.port}` : ''} is a different origin.`;
  }
  if (listed.port) return `Only port ${listed.port}; the same site on another port is a different origin.`;
  if (host.startsWith('www.')) return `Not ${listed.protocol}//${host.slice(4)}: list it too if the site answers there.`;
  if (host.split('.').length === 2) return `Not ${listed.protocol}//www.${host}: list it too if the site answers there.`;
  return null;
}

/** The answer of GET /embed/{slug}/check (the snippet asks it before drawing anything). */
export interface EmbedCheck {
  allowed: boolean;
  /** ok, origin_not_allowed, invalid_key, revoked, app_not_embeddable */
  reason: 'ok' | 'origin_not_allowed' | 'invalid_key' | 'revoked' | 'app_not_embeddable';
  /** What the site owner reads in the console. */
  message: string;
  origin: string | null;
  hints: string[];
}
