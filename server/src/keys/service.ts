// API keys for programmatic calls: tb_ + 32 random bytes in base62, shown once at creation. Only
// the SHA-256 of the whole key is stored, so a presented key is found by hashing it and looking
// the hash up (an index lookup, no timing-sensitive comparison in our code).
import { createHash, randomBytes } from 'node:crypto';
import type { ApiKey, ApiKeyCreate, ApiKeyCreated } from '@tollbooth/contract';
import type { UserRow } from '../auth/users-service.ts';
import type { Database } from '../db/client.ts';
import { AppError, invalidParam } from '../errors.ts';
import { mapPage, type Page, type PageRequest } from '../http/pagination.ts';
import {
  type ApiKeyRow,
  countLiveApiKeysForUpdate,
  insertApiKey,
  markApiKeyRevoked,
  selectApiKeysByUser,
  selectLiveApiKeyByHash,
  selectSpentThisMonthCents,
  touchApiKeyLastUsed,
} from './queries.ts';

export const API_KEY_PREFIX = 'tb_';
/** Unrevoked keys one user may hold. */
export const MAX_LIVE_KEYS_PER_USER = 50;
const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62^43 > 2^256 > 62^42: 43 base62 characters hold any 32 bytes. */
const KEY_BODY_LENGTH = 43;
const KEY_RANDOM_BYTES = 32;
/** Characters after tb_ that stay visible in lists. */
const VISIBLE_PREFIX_LENGTH = 8;
const API_KEY_PATTERN = /^tb_[0-9A-Za-z]{43}$/;
/** last_used_at is written at most this often per key, to keep authentication read-only almost always. */
const LAST_USED_RESOLUTION_MS = 60_000;

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
  listKeys(userId: string, options: { includeRevoked?: boolean } & PageRequest): Promise<Page<ApiKey>>;
  revokeKey(userId: string, keyId: string): Promise<void>;
  /** The live key a raw key string belongs to, or null (malformed, unknown, revoked, or its user inactive). */
  authenticateApiKey(rawKey: string): Promise<AuthenticatedApiKey | null>;
  /** What calls made with the key were charged since the start of the current UTC month. */
  spentThisMonthCents(keyId: string): Promise<number>;
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

export function generateApiKey(): string {
  return API_KEY_PREFIX + encodeBase62(randomBytes(KEY_RANDOM_BYTES), KEY_BODY_LENGTH);
}

/** Whether a bearer token has the shape of a Tollbooth API key (rather than an access token). */
export function looksLikeApiKey(token: string): boolean {
  return API_KEY_PATTERN.test(token);
}

export function hashApiKey(rawKey: string): string {
  return createHash('sha256').update(rawKey, 'utf8').digest('hex');
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
  };
}

export function createApiKeysService({ db }: { db: Database }): ApiKeysService {
  return {
    async createKey(userId, input) {
      const name = input.name.trim();
      if (!name) throw invalidParam('name', 'must not be blank');
      const key = generateApiKey();
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
        });
      });
      return { ...toView(row), key };
    },

    async listKeys(userId, { includeRevoked = false, ...page }) {
      return mapPage(await selectApiKeysByUser(db, userId, includeRevoked, page), toView);
    },

    async revokeKey(userId, keyId) {
      if (!(await markApiKeyRevoked(db, keyId, userId))) throw apiKeyNotFound();
    },

    async authenticateApiKey(rawKey) {
      if (!looksLikeApiKey(rawKey)) return null;
      const row = await selectLiveApiKeyByHash(db, hashApiKey(rawKey));
      if (!row) return null;
      if (!row.last_used_at || Date.now() - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
        await touchApiKeyLastUsed(db, row.id);
      }
      return {
        keyId: row.id,
        userId: row.user_id,
        monthlySpendLimitCents: row.monthly_spend_limit_cents,
        maxPriceCents: row.max_price_cents,
        user: row.user,
      };
    },

    spentThisMonthCents: (keyId) => selectSpentThisMonthCents(db, keyId),
  };
}
