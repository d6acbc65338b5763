// The embed widget (issue 28, decision 0030): GET /embed/{slug}?key=pk_… serves a small page that a
// website frames, and the page's calls come back to /api/embed/{slug}/…-messages with the
// publishable key. What keeps a public key's money safe, in the order a call meets it:
//   1. the page is framed only on the key's origins (CSP frame-ancestors with exactly those), and
//      refused outright when the browser says it is not a frame or names another ancestor (Referer);
//   2. the page carries a frame token (HMAC with SECRET_KEY: the key, the ancestor origin, an
//      expiry) that calls must present, and calls must come from the frame itself (Origin = ours):
//      another site's script, or the key pasted into curl without the token, is refused;
//   3. the key calls only its apps, each visitor (the anonymous id the frame keeps, sent as `user`)
//      at most visitor_rate_limit_per_minute, and within the daily and monthly caps: both are
//      billing's hold on the key's spend counters (billing/paid-call/holds.ts), taken with the call's price in one
//      statement, so no number of concurrent calls or processes passes either cap.
// Every refusal happens before anything is charged, so it costs nothing; the gateway records it.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { type EmbedCheck, originNearMisses } from '@tollbooth/contract';
import type { AppRow, AppsService } from '../apps/service.ts';
import type { AuthContext } from '../auth/plugin.ts';
import type { CatalogService } from '../catalog/service.ts';
import { RateLimitedError } from '../gateway/service.ts';
import type { ApiKeysService, PublishableKeyLookupRow } from '../keys/service.ts';
import type { Config } from '../platform/config.ts';
import { AppError, invalidParam } from '../platform/errors.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import { renderRefusalPage, renderWidgetPage, type WidgetSettings, widgetPriceText } from './widget-page.ts';

/** How long one page load may call: a visitor who keeps the tab open longer reloads it. */
export const FRAME_TOKEN_LIFETIME_SECONDS = 12 * 60 * 60;
export const EMBED_TOKEN_HEADER = 'x-embed-token';
const VISITOR_ID = /^[A-Za-z0-9_-]{8,100}$/;

export interface WidgetRequest {
  slug: string;
  key: string | undefined;
  theme: string | undefined;
  /** Sec-Fetch-Dest: what the browser loads the page as (iframe, document…). */
  fetchDest: string | undefined;
  referer: string | undefined;
}

export interface WidgetAnswer {
  status: number;
  html: string;
  /** The page's Content-Security-Policy, frame-ancestors included. */
  csp: string;
}

export interface EmbedCallRequest {
  slug: string;
  authorization: string | undefined;
  token: string | undefined;
  origin: string | undefined;
  visitor: unknown;
}

export interface EmbedDependencies {
  config: Pick<Config, 'publicUrl' | 'secretKey'>;
  keys: Pick<ApiKeysService, 'findPublishableKey'>;
  apps: Pick<AppsService, 'findCallableApp'>;
  catalog: Pick<CatalogService, 'describeAppForm'>;
  /** Per-visitor counters; each key's own limit is passed with every hit. */
  visitorLimiter: RateLimiter;
}

/** The page's policy: its own script and styles only, calls to this origin only, framed only by `ancestors`. */
export function widgetPolicy(ancestors: string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${ancestors.length > 0 ? ancestors.join(' ') : "'none'"}`,
  ].join('; ');
}

const base64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

export function createEmbedService({ config, keys, apps, catalog, visitorLimiter }: EmbedDependencies) {
  const ownOrigin = new URL(config.publicUrl).origin;
  const sign = (payload: string) => createHmac('sha256', config.secretKey).update(`embed-frame:${payload}`).digest('base64url');

  const issueFrameToken = (keyId: string, ancestor: string, now = Date.now()) => {
    const payload = `${keyId}.${base64url(ancestor)}.${Math.floor(now / 1000) + FRAME_TOKEN_LIFETIME_SECONDS}`;
    return `${payload}.${sign(payload)}`;
  };

  /** The ancestor origin the token was issued for ('' when the browser did not say), or null when the token is not valid for the key. */
  const readFrameToken = (token: string | undefined, keyId: string): string | null => {
    const parts = token?.split('.') ?? [];
    if (parts.length !== 4) return null;
    const [id, ancestor, expires, signature] = parts as [string, string, string, string];
    const expected = Buffer.from(sign(`${id}.${ancestor}.${expires}`));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    if (id !== keyId || !(Number(expires) * 1000 > Date.now())) return null;
    return Buffer.from(ancestor, 'base64url').toString('utf8');
  };

  /** Who may call `app` with `key`: the key names it, and a private app only for its owner. */
  const embeddable = (key: PublishableKeyLookupRow, app: AppRow | null): app is AppRow =>
    app !== null && key.app_slugs.includes(app.slug) && (app.owner_id === key.user_id || (app.visibility !== 'private' && app.status === 'live'));

  return {
    /**
     * The snippet's question before it draws anything (issue 61): may this key's widget for `slug`
     * be shown on the page at `origin`? Only informs (the frame's CSP is what enforces); the key and
     * its origins are public, so the answer tells the site owner what to fix.
     */
    async checkEmbed(request: { slug: string; key: string | undefined; origin: string | null }): Promise<EmbedCheck> {
      const key = request.key ? await keys.findPublishableKey(request.key) : null;
      const origin = request.origin;
      const answer = (reason: EmbedCheck['reason'], message: string, hints: string[] = []): EmbedCheck => ({
        allowed: reason === 'ok',
        reason,
        message,
        origin,
        hints,
      });
      if (!key) return answer('invalid_key', 'This publishable key does not exist: copy the snippet again from your keys page.');
      if (key.revoked_at) return answer('revoked', 'This publishable key was revoked: create a new one on your keys page.');
      if (origin === null || !key.allowed_origins.includes(origin)) {
        return answer(
          'origin_not_allowed',
          `This site is not allowed for this key: ${origin ?? 'this page'} is not one of its websites (${key.allowed_origins.join(', ')}). Add it on your keys page.`,
          origin ? originNearMisses(origin, key.allowed_origins) : [],
        );
      }
      const app = await apps.findCallableApp(request.slug);
      if (!embeddable(key, app)) return answer('app_not_embeddable', `This key may not show ${request.slug}: add the app to the key, or publish it.`);
      return answer('ok', 'ok');
    },

    async renderWidget(request: WidgetRequest): Promise<WidgetAnswer> {
      const theme = request.theme === 'dark' ? 'dark' : 'light';
      const key = request.key ? await keys.findPublishableKey(request.key) : null;
      if (!key) return { status: 401, csp: widgetPolicy([]), html: renderRefusalPage('This widget needs a valid publishable key.', theme) };
      // A known key's refusals are framed where the key may be, so its site shows why.
      const refuse = (status: number, message: string) => ({ status, csp: widgetPolicy(key.allowed_origins), html: renderRefusalPage(message, theme) });
      if (key.revoked_at) return refuse(401, 'This widget’s key was revoked by the site owner.');
      // Opened as a page of its own (or fetched by a script), it could be used from anywhere.
      if (request.fetchDest !== 'iframe') return refuse(403, 'This widget works only inside the website it was made for.');
      let ancestor = '';
      if (request.referer) {
        try {
          ancestor = new URL(request.referer).origin;
        } catch {
          ancestor = 'null';
        }
        if (!key.allowed_origins.includes(ancestor)) return refuse(403, 'This widget is not allowed on this website.');
      }
      const app = await apps.findCallableApp(request.slug);
      if (!embeddable(key, app)) return refuse(404, 'This app cannot be shown here.');
      const form = await catalog.describeAppForm(app);
      const settings: WidgetSettings = {
        slug: app.slug,
        name: app.name,
        description: app.description,
        priceCents: app.owner_id === key.user_id ? 0 : app.price_cents,
        price: widgetPriceText(app.pricing, app.price_cents, app.owner_id === key.user_id),
        mode: form.mode,
        fields: form.fields,
        textInput: form.textInput,
        key: request.key as string,
        token: issueFrameToken(key.id, ancestor),
        theme,
      };
      return { status: 200, csp: widgetPolicy(key.allowed_origins), html: renderWidgetPage(settings) };
    },

    /** The caller of an embed call, or the reason it is refused (thrown, before anything is reserved). */
    async authenticateCall(request: EmbedCallRequest): Promise<AuthContext> {
      const raw = /^Bearer\s+(\S+)\s*$/i.exec(request.authorization ?? '')?.[1];
      const key = raw ? await keys.findPublishableKey(raw) : null;
      if (!key) throw new AppError('unauthorized', 'Send Authorization: Bearer <publishable key (pk_…)>');
      if (key.revoked_at) throw new AppError('unauthorized', 'This publishable key was revoked');
      // A browser always names the page that calls: the widget frame is ours. curl names none, another site its own.
      if (request.origin !== ownOrigin) {
        throw new AppError('forbidden', `Publishable keys call only from the embed widget frame (this call came from ${request.origin ?? 'no browser page'})`);
      }
      const ancestor = readFrameToken(request.token, key.id);
      if (ancestor === null || (ancestor !== '' && !key.allowed_origins.includes(ancestor))) {
        throw new AppError('forbidden', 'The widget session is not valid for this key: reload the page');
      }
      const app = await apps.findCallableApp(request.slug);
      // An unknown app is the gateway's 404; a known one must be one this key may call.
      if (app && !embeddable(key, app)) throw new AppError('forbidden', `This publishable key may not call ${request.slug}`);
      if (typeof request.visitor !== 'string' || !VISITOR_ID.test(request.visitor)) {
        throw invalidParam('user', 'must be the widget visitor id (8 to 100 letters, digits, _ or -)');
      }
      const visitor = await visitorLimiter.hit(`embed:${key.id}:${request.visitor}`, key.visitor_rate_limit_per_minute);
      if (!visitor.allowed) throw new RateLimitedError(visitor);
      // Both caps are held with the price when the gateway reserves it (402 key_limit_exceeded naming the cap).
      return {
        user: key.user,
        subject: key.user.subject,
        apiKey: {
          id: key.id,
          monthlySpendLimitCents: key.monthly_spend_limit_cents,
          dailySpendLimitCents: key.daily_spend_limit_cents,
          maxPriceCents: null,
        },
      };
    },
  };
}

export type EmbedService = ReturnType<typeof createEmbedService>;
