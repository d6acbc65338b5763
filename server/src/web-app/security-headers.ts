// Security headers for the web app's HTML: a Content-Security-Policy the app passes, no MIME
// sniffing, no framing (the embed widget at /embed/{slug} is not the app: embed/service.ts gives
// it its own policy, framed only on a publishable key's origins), and a referrer that never leaks paths to
// other origins. See docs/decisions/0010-http-conventions-identity-and-csp.md for each source's reason.
import type { FastifyReply } from 'fastify';
import type { Config } from '../platform/config.ts';

const STRIPE_JS = 'https://js.stripe.com';
const STRIPE_API = 'https://api.stripe.com';
const STRIPE_HOOKS = 'https://hooks.stripe.com';

const withOrigin = (sources: string[], url: string | null) => {
  if (!url) return sources;
  const origin = new URL(url).origin;
  return sources.includes(origin) ? sources : [...sources, origin];
};

/**
 * The policy for the app's HTML. Besides Stripe's hosts it names the OIDC issuer's origin (the
 * browser fetches its discovery document and tokens, and may renew in a hidden frame) and the
 * Stripe API base when STRIPE_API_BASE is set (the tests' fake, which the Stripe.js double calls).
 */
export function contentSecurityPolicy(config: Config): string {
  const self = new URL(config.publicUrl).origin;
  const issuer = new URL(config.oidc.issuer).origin === self ? null : config.oidc.issuer;
  const connect = withOrigin(withOrigin(["'self'", STRIPE_API], config.stripe.apiBase), issuer);
  const frames = withOrigin(["'self'", STRIPE_JS, STRIPE_HOOKS], issuer);
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    // Stripe.js is loaded from Stripe's host by @stripe/stripe-js; Monaco is bundled, so no eval.
    'script-src': ["'self'", STRIPE_JS],
    // Monaco and Stripe.js add <style> elements and style attributes at run time.
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:', 'blob:'],
    'font-src': ["'self'", 'data:'],
    'connect-src': connect,
    // Stripe Elements and 3-D Secure run in Stripe's frames; oidc-client-ts may renew in a hidden frame.
    'frame-src': frames,
    // Monaco's editor worker is a bundled file.
    'worker-src': ["'self'", 'blob:'],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'frame-ancestors': ["'none'"],
  };
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}

/** Sets the HTML answer's security headers; `csp` is contentSecurityPolicy(config), computed once. */
export function setHtmlSecurityHeaders(reply: FastifyReply, csp: string): FastifyReply {
  return reply
    .header('Content-Security-Policy', csp)
    .header('X-Content-Type-Options', 'nosniff')
    .header('X-Frame-Options', 'DENY')
    .header('Referrer-Policy', 'strict-origin-when-cross-origin');
}
