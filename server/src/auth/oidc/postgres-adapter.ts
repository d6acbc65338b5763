// oidc-provider storage in PostgreSQL (or PGlite): one table for every model, so all server
// processes share sessions, grants and refresh tokens and they survive restarts.
import { createHash } from 'node:crypto';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Queryable } from '../../db/client.ts';

interface PayloadRow {
  payload: AdapterPayload;
  consumed_at: Date | string | null;
}

// Models whose instances belong to a grant and die with it (revokeByGrantId).
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest', 'PreAuthorizedCode']);

// Models whose id IS the bearer secret (refresh tokens, codes, opaque tokens): stored as a SHA-256
// of the id, and without the payload's jti (the same value), so a database read does not hand out
// usable tokens. Lookups hash the presented id the same way.
const SECRET_ID_MODELS = new Set([
  'RefreshToken',
  'AuthorizationCode',
  'AccessToken',
  'ClientCredentials',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PreAuthorizedCode',
]);

/** The stored id of a model instance: its SHA-256 for models whose id is a secret (see migration 0011). */
export function storedId(model: string, id: string): string {
  return SECRET_ID_MODELS.has(model) ? `sha256:${createHash('sha256').update(id).digest('hex')}` : id;
}

const epochSeconds = (value: Date | string) => Math.floor(new Date(value).getTime() / 1000);

export class PostgresAdapter implements Adapter {
  constructor(
    private readonly db: Queryable,
    private readonly model: string,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const expiresAt = typeof expiresIn === 'number' ? new Date(Date.now() + expiresIn * 1000) : null;
    await this.db.query(
      `INSERT INTO oidc_payloads (model, id, payload, grant_id, uid, user_code, account_id, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (model, id) DO UPDATE SET
         payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid,
         user_code = EXCLUDED.user_code, account_id = EXCLUDED.account_id, expires_at = EXCLUDED.expires_at`,
      [
        this.model,
        storedId(this.model, id),
        JSON.stringify(SECRET_ID_MODELS.has(this.model) ? { ...payload, jti: undefined } : payload),
        GRANTABLE.has(this.model) ? (payload.grantId ?? null) : null,
        this.model === 'Session' ? (payload.uid ?? null) : null,
        payload.userCode ?? null,
        payload.accountId ?? null,
        expiresAt,
      ],
    );
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const { rows } = await this.db.query<PayloadRow>(
      'SELECT payload, consumed_at FROM oidc_payloads WHERE model = $1 AND id = $2 AND (expires_at IS NULL OR expires_at > now())',
      [this.model, storedId(this.model, id)],
    );
    const payload = this.toPayload(rows[0]);
    return payload && SECRET_ID_MODELS.has(this.model) ? { ...payload, jti: id } : payload;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const { rows } = await this.db.query<PayloadRow>(
      'SELECT payload, consumed_at FROM oidc_payloads WHERE model = $1 AND uid = $2 AND (expires_at IS NULL OR expires_at > now())',
      [this.model, uid],
    );
    return this.toPayload(rows[0]);
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const { rows } = await this.db.query<PayloadRow>(
      'SELECT payload, consumed_at FROM oidc_payloads WHERE model = $1 AND user_code = $2 AND (expires_at IS NULL OR expires_at > now())',
      [this.model, userCode],
    );
    return this.toPayload(rows[0]);
  }

  async consume(id: string): Promise<void> {
    await this.db.query('UPDATE oidc_payloads SET consumed_at = now() WHERE model = $1 AND id = $2', [this.model, storedId(this.model, id)]);
  }

  async destroy(id: string): Promise<void> {
    await this.db.query('DELETE FROM oidc_payloads WHERE model = $1 AND id = $2', [this.model, storedId(this.model, id)]);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    // oidc-provider calls this once per token model; the Grant row itself goes through destroy().
    await this.db.query('DELETE FROM oidc_payloads WHERE model = $1 AND grant_id = $2', [this.model, grantId]);
  }

  private toPayload(row: PayloadRow | undefined): AdapterPayload | undefined {
    if (!row) return undefined;
    return row.consumed_at ? { ...row.payload, consumed: epochSeconds(row.consumed_at) } : row.payload;
  }
}

export function createPostgresAdapterFactory(db: Queryable) {
  return (model: string): Adapter => new PostgresAdapter(db, model);
}

/** Removes rows past their expiry; the adapter already ignores them, this only reclaims space. */
export async function deleteExpiredPayloads(db: Queryable): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM oidc_payloads WHERE expires_at < now()');
  return rowCount;
}

/** Deletes an account's sessions, grants and every token or code issued under those grants. */
export async function deleteAccountPayloads(db: Queryable, accountId: string): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM oidc_payloads
     WHERE account_id = $1
        OR grant_id IN (SELECT id FROM oidc_payloads WHERE model = 'Grant' AND account_id = $1)`,
    [accountId],
  );
  return rowCount;
}
