// The SQL of creators' own provider keys (bring your own key): one row per user and kind,
// the key sealed by crypto/secrets.ts. What may be stored is decided in own-keys-service.ts.
import type { CredentialKind } from '@tollbooth/contract';
import type { Queryable } from '../db/client.ts';

export interface CredentialRow {
  kind: CredentialKind;
  base_url: string | null;
  api_key_encrypted: string;
  updated_at: Date;
}

export async function selectCredentials(q: Queryable, userId: string): Promise<CredentialRow[]> {
  const { rows } = await q.query<CredentialRow>(
    'SELECT kind, base_url, api_key_encrypted, updated_at FROM provider_credentials WHERE user_id = $1 ORDER BY kind',
    [userId],
  );
  return rows;
}

export async function selectCredential(q: Queryable, userId: string, kind: CredentialKind): Promise<CredentialRow | null> {
  const { rows } = await q.query<CredentialRow>(
    'SELECT kind, base_url, api_key_encrypted, updated_at FROM provider_credentials WHERE user_id = $1 AND kind = $2',
    [userId, kind],
  );
  return rows[0] ?? null;
}

export async function upsertCredential(q: Queryable, userId: string, kind: CredentialKind, baseUrl: string | null, sealedKey: string): Promise<CredentialRow> {
  const { rows } = await q.query<CredentialRow>(
    `INSERT INTO provider_credentials (user_id, kind, base_url, api_key_encrypted) VALUES ($1, $2, $3, $4)
     ON CONFLICT (user_id, kind) DO UPDATE SET base_url = EXCLUDED.base_url, api_key_encrypted = EXCLUDED.api_key_encrypted, updated_at = now()
     RETURNING kind, base_url, api_key_encrypted, updated_at`,
    [userId, kind, baseUrl, sealedKey],
  );
  return rows[0]!;
}

export async function deleteCredential(q: Queryable, userId: string, kind: CredentialKind): Promise<boolean> {
  const { rows } = await q.query('DELETE FROM provider_credentials WHERE user_id = $1 AND kind = $2 RETURNING kind', [userId, kind]);
  return rows.length > 0;
}
