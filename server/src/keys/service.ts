// API keys for programmatic calls: tb_ + 32 random bytes in base62, shown once at creation. Only
// the SHA-256 of the whole key is stored, so a presented key is found by hashing it and looking
// the hash up (an index lookup, no timing-sensitive comparison in our code).
import { hash, randomBytes } from 'node:crypto';
import type { ApiKey, ApiKeyCreate, ApiKeyCreated } from '@tollbooth/contract';
import type { AppsService } from '../apps/service.ts';
import type { UserRow } from '../auth/users-service.ts';
import type { Database } from '../db/client.ts';
import type { InvalidationBus } from '../db/invalidation.ts';
import { createReadRouter, DEFAULT_READ_TIMEOUT_MS, type Reader, type ReadRouter } from '../db/reads.ts';
import { mapPage, type Page, type PageRequest } from '../http/pagination.ts';
import { AppError, invalidParam } from '../platform/errors.ts';
import { looksLikeApiKey, looksLikePublishableKey } from '../platform/key-formats.ts';
import {
  type ApiKeyRow,
  countLiveApiKeysForUpdate,
  insertApiKey,
  markApiKeyRevoked,
  type PublishableBindings,
  type PublishableKeyLookupRow,
  selectApiKeyOfUser,
  selectApiKeysByUser,
  selectLiveApiKeyByHash,
  selectPublishableKeyByHash,
  selectSpentThisMonthCents,
  selectSpentTodayCents,
  touchApiKeyLastUsed,
} from './queries.ts';

export type { PublishableKeyLookupRow } from './queries.ts';

export const API_KEY_PREFIX = 'tb_';
/** Publishable keys (the embed widget's): public by design, bound to origins, apps and caps. */
export const PUBLISHABLE_KEY_PREFIX = 'pk_';
/** A widget visitor's calls per minute when the key does not say. */
export const DEFAULT_VISITOR_RATE_LIMIT_PER_MINUTE = 10;
/** Unrevoked keys one user may hold. */
export const MAX_LIVE_KEYS_PER_USER = 50;
const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62^43 > 2^256 > 62^42: 43 base62 characters hold any 32 bytes. */
const KEY_BODY_LENGTH = 43;
const KEY_RANDOM_BYTES = 32;
/** Characters after tb_ that stay visible in lists. */
const VISIBLE_PREFIX_LENGTH = 8;
/** last_used_at is written at most this often per key, to keep authentication read-only almost always. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** A cached key is read again at least this often, whatever the notifications say. */
const CACHE_MAX_AGE_MS = 60_000;
/** Past this many cached keys the cache starts afresh (live keys in one process are far fewer). */
const CACHE_MAX_ENTRIES = 50_000;

export interface AuthenticatedApiKey {
  keyId: string;
  userId: string;
  monthlySpendLimitCents: number | null;
  maxPriceCents: number | null;
  user: UserRow;
}

export interface ApiKeysService {
  createKey(userId: string, input: ApiKeyCreate): Promise<ApiKeyCreated>;
  /** A page of the user's keys, newest first. */
  /** The user's keys, a page at a time: from the replica once it has the user's last change (db/reads.ts). */
  listKeys(user: Reader, options: { includeRevoked?: boolean; kind?: 'secret' | 'publishable' } & PageRequest): Promise<Page<ApiKey>>;
  revokeKey(userId: string, keyId: string): Promise<void>;
  /** The live key a raw key string belongs to, or null (malformed, unknown, revoked, or its user inactive). */
  authenticateApiKey(rawKey: string): Promise<AuthenticatedApiKey | null>;
  /** What calls made with the key were charged since the start of the current UTC month. */
  spentThisMonthCents(keyId: string): Promise<number>;
  /** The publishable key a raw pk_ string names, revoked or not, or null (malformed, unknown, or its user inactive). */
  findPublishableKey(rawKey: string): Promise<PublishableKeyLookupRow | null>;
  /** What calls made with the key were charged since the start of the current UTC day. */
  spentTodayCents(keyId: string): Promise<number>;
  /** One of the user's keys as listed (GET /v1/key: a key reads itself). */
  readKey(userId: string, keyId: string): Promise<ApiKey>;
}

export const apiKeyNotFound = () => new AppError('not_found', 'API key not found');

/** Big-endian bytes as base62, left-padded with '0' to `length` characters. */
export function encodeBase62(bytes: Uint8Array, length: number): string {
  let value = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let encoded = '';
  while (value > 0n) {
    encoded = BASE62_ALPHABET[Number(value % 62n)] + encoded;
    value /= 62n;
  }
  if (encoded.length > length) throw new Error(`value needs ${encoded.length} base62 characters, more than ${length}`);
  return encoded.padStart(length, '0');
}

export function generateApiKey(prefix = API_KEY_PREFIX): string {
  return prefix + encodeBase62(randomBytes(KEY_RANDOM_BYTES), KEY_BODY_LENGTH);
}

/** An allowed origin as the browser sends it (scheme://host[:port]), or an invalid_param naming the entry. */
export function normalizeOrigin(value: string, index: number): string {
  const field = `allowed_origins.${index}`;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw invalidParam(field, 'must be an origin such as https://example.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidParam(field, 'must start with https:// or http://');
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) {
    throw invalidParam(field, 'must be an origin only (scheme://host[:port]), without a path, query or credentials');
  }
  return url.origin;
}

export { looksLikeApiKey, looksLikePublishableKey };

export function hashApiKey(rawKey: string): string {
  return hash('sha256', rawKey, 'hex');
}

function toView(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
    monthly_spend_limit_cents: row.monthly_spend_limit_cents,
    max_price_cents: row.max_price_cents,
    spent_this_month_cents: row.spent_this_month_cents,
    kind: row.kind,
    publishable:
      row.kind === 'publishable'
        ? {
            key: row.publishable_key ?? '',
            allowed_origins: row.allowed_origins ?? [],
            app_slugs: row.app_slugs ?? [],
            daily_spend_limit_cents: row.daily_spend_limit_cents ?? 0,
            visitor_rate_limit_per_minute: row.visitor_rate_limit_per_minute ?? DEFAULT_VISITOR_RATE_LIMIT_PER_MINUTE,
            spent_today_cents: row.spent_today_cents,
          }
        : null,
  };
}

interface CachedKey {
  key: AuthenticatedApiKey;
  loadedAt: number;
  /** When this process last knew last_used_at to be written (or the row's value when loaded). */
  lastUsedAt: number;
}

/**
 * Live keys by hash, so a paid call needs no database round trip to know its caller. Invalidated
 * by the key's or its user's change in any process (db/invalidation.ts, within milliseconds), and
 * bypassed while notifications may be missed. Unknown keys are never cached: a key created a
 * moment ago in another process works at once, and random keys cannot fill the cache.
 */
function createKeyCache(bus: InvalidationBus) {
  const byHash = new Map<string, CachedKey>();
  const forget = (match: (key: AuthenticatedApiKey) => boolean) => {
    for (const [hash, cached] of byHash) if (match(cached.key)) byHash.delete(hash);
  };
  bus.on('key', (id) => (id === null ? byHash.clear() : forget((key) => key.keyId === id)));
  bus.on('user', (id) => (id === null ? byHash.clear() : forget((key) => key.userId === id)));
  return {
    get(hash: string): CachedKey | undefined {
      if (!bus.live()) return undefined;
      const cached = byHash.get(hash);
      if (cached && Date.now() - cached.loadedAt >= CACHE_MAX_AGE_MS) {
        byHash.delete(hash);
        return undefined;
      }
      return cached;
    },
    set(hash: string, cached: CachedKey, token: number) {
      // A change notified while the row was being read may postdate it: do not keep it.
      if (!bus.live() || !bus.stillCurrent(token)) return;
      if (byHash.size >= CACHE_MAX_ENTRIES) byHash.clear();
      byHash.set(hash, cached);
    },
    track: () => bus.track(),
  };
}

export function createApiKeysService({
  db,
  reads = createReadRouter({ primary: db, statementTimeoutMs: DEFAULT_READ_TIMEOUT_MS }),
  invalidation,
  apps,
}: {
  db: Database;
  /** List reads under the statement timeout, on the replica when it has the reader's last change. */
  reads?: ReadRouter;
  invalidation?: InvalidationBus;
  /** Checks the apps a publishable key is bound to. */
  apps?: Pick<AppsService, 'findCallableApp'>;
}): ApiKeysService {
  /** A publishable key's bindings from the create body: every field checked, 400 naming the first bad one. */
  const readPublishableBindings = async (userId: string, input: ApiKeyCreate, key: string): Promise<PublishableBindings> => {
    if (!input.allowed_origins || input.allowed_origins.length === 0) throw invalidParam('allowed_origins', 'a publishable key needs at least one origin');
    if (!input.app_slugs || input.app_slugs.length === 0) throw invalidParam('app_slugs', 'a publishable key needs at least one app');
    if (input.daily_spend_limit_cents === undefined) throw invalidParam('daily_spend_limit_cents', 'a publishable key needs a daily spend limit');
    if (input.monthly_spend_limit_cents === undefined || input.monthly_spend_limit_cents === null) {
      throw invalidParam('monthly_spend_limit_cents', 'a publishable key needs a monthly spend limit');
    }
    const allowedOrigins = [...new Set(input.allowed_origins.map(normalizeOrigin))];
    const appSlugs = [...new Set(input.app_slugs.map((slug) => slug.trim()))];
    for (const [index, slug] of appSlugs.entries()) {
      const app = await apps?.findCallableApp(slug);
      // Another user's private app is not even there; another user's app that is not live cannot be embedded yet.
      const embeddable = app && (app.owner_id === userId || (app.visibility !== 'private' && app.status === 'live'));
      if (!embeddable) throw invalidParam(`app_slugs.${index}`, `no app "${slug}" you may embed (live public or embed apps, or your own)`);
    }
    return {
      publishableKey: key,
      allowedOrigins,
      appSlugs,
      dailySpendLimitCents: input.daily_spend_limit_cents,
      visitorRateLimitPerMinute: input.visitor_rate_limit_per_minute ?? DEFAULT_VISITOR_RATE_LIMIT_PER_MINUTE,
    };
  };
  const cache = invalidation ? createKeyCache(invalidation) : null;
  const touchIfStale = async (cached: CachedKey) => {
    const now = Date.now();
    if (now - cached.lastUsedAt < LAST_USED_RESOLUTION_MS) return;
    cached.lastUsedAt = now;
    await touchApiKeyLastUsed(db, cached.key.keyId);
  };
  return {
    async createKey(userId, input) {
      const name = input.name.trim();
      if (!name) throw invalidParam('name', 'must not be blank');
      const publishable = input.kind === 'publishable';
      const key = generateApiKey(publishable ? PUBLISHABLE_KEY_PREFIX : API_KEY_PREFIX);
      const bindings = publishable ? await readPublishableBindings(userId, input, key) : undefined;
      const row = await db.transaction(async (tx) => {
        // A cap, so the per-key rate limit cannot be multiplied at will.
        if ((await countLiveApiKeysForUpdate(tx, userId)) >= MAX_LIVE_KEYS_PER_USER) {
          throw new AppError('conflict', `You have ${MAX_LIVE_KEYS_PER_USER} API keys, the most allowed; revoke one to create another`, 'name');
        }
        return insertApiKey(tx, {
          userId,
          name,
          prefix: key.slice(0, API_KEY_PREFIX.length + VISIBLE_PREFIX_LENGTH),
          keyHash: hashApiKey(key),
          monthlySpendLimitCents: input.monthly_spend_limit_cents ?? null,
          maxPriceCents: input.max_price_cents ?? null,
          ...(bindings ? { publishable: bindings } : {}),
        });
      });
      return { ...toView(row), key };
    },

    async listKeys(user, { includeRevoked = false, kind, ...page }) {
      return mapPage(await selectApiKeysByUser(reads.as(user), user.id, includeRevoked, page, kind ?? null), toView);
    },

    async revokeKey(userId, keyId) {
      if (!(await markApiKeyRevoked(db, keyId, userId))) throw apiKeyNotFound();
      // At once here; other processes hear of it by NOTIFY.
      invalidation?.invalidate('key', keyId);
    },

    async authenticateApiKey(rawKey) {
      if (!looksLikeApiKey(rawKey)) return null;
      const hash = hashApiKey(rawKey);
      const hit = cache?.get(hash);
      if (hit) {
        await touchIfStale(hit);
        return hit.key;
      }
      const token = cache?.track() ?? 0;
      const row = await selectLiveApiKeyByHash(db, hash);
      if (!row) return null;
      const loaded: CachedKey = {
        key: {
          keyId: row.id,
          userId: row.user_id,
          monthlySpendLimitCents: row.monthly_spend_limit_cents,
          maxPriceCents: row.max_price_cents,
          user: row.user,
        },
        loadedAt: Date.now(),
        lastUsedAt: row.last_used_at?.getTime() ?? 0,
      };
      await touchIfStale(loaded);
      cache?.set(hash, loaded, token);
      return loaded.key;
    },

    spentThisMonthCents: (keyId) => selectSpentThisMonthCents(db, keyId),

    async findPublishableKey(rawKey) {
      if (!looksLikePublishableKey(rawKey)) return null;
      return selectPublishableKeyByHash(db, hashApiKey(rawKey));
    },

    spentTodayCents: (keyId) => selectSpentTodayCents(db, keyId),

    async readKey(userId, keyId) {
      const row = await selectApiKeyOfUser(db, userId, keyId);
      if (!row) throw apiKeyNotFound();
      return toView(row);
    },
  };
}
