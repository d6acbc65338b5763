// The provider's token signing keys: generated on first start, stored encrypted in the database,
// and read back by every later start and every other process, so tokens signed by one process
// verify everywhere and survive restarts.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JSONWebKeySet, type JWK } from 'jose';
import { decryptText, deriveKey, encryptText } from '../../crypto/secrets.ts';
import type { Queryable } from '../../db/client.ts';

export interface SigningKeys {
  /** Private JWKs for oidc-provider's `jwks` option, newest first (the first one signs). */
  privateJwks: { keys: JWK[] };
  /** The same keys without their private members, for verifiers. */
  publicJwks: JSONWebKeySet;
}

const SIGNING_ALG = 'RS256';
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

interface KeyRow {
  kid: string;
  encrypted_jwk: string;
}

async function readKeyRows(db: Queryable): Promise<KeyRow[]> {
  const { rows } = await db.query<KeyRow>('SELECT kid, encrypted_jwk FROM oidc_signing_keys ORDER BY generation DESC, created_at DESC');
  return rows;
}

async function generateSigningJwk(alg: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair(alg, { modulusLength: 2048, extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: await calculateJwkThumbprint(jwk), alg, use: 'sig' };
}

export function toPublicJwk(jwk: JWK): JWK {
  const copy: Record<string, unknown> = { ...jwk };
  for (const member of PRIVATE_MEMBERS) delete copy[member];
  return copy as JWK;
}

/**
 * Reads the signing keys, creating the first one when there is none. Two processes starting at
 * once may both generate a key; the unique (alg, generation) slot lets exactly one insert win and
 * both then read that one back.
 */
export async function loadOrCreateSigningKeys(db: Queryable, secretKey: Buffer): Promise<SigningKeys> {
  const encryptionKey = deriveKey(secretKey, 'oidc-signing-keys');
  let rows = await readKeyRows(db);
  if (rows.length === 0) {
    const jwk = await generateSigningJwk(SIGNING_ALG);
    await db.query(
      `INSERT INTO oidc_signing_keys (kid, alg, generation, encrypted_jwk) VALUES ($1, $2, 1, $3)
       ON CONFLICT DO NOTHING`,
      [jwk.kid, SIGNING_ALG, encryptText(encryptionKey, JSON.stringify(jwk))],
    );
    rows = await readKeyRows(db);
  }
  const keys = rows.map((row) => {
    try {
      return JSON.parse(decryptText(encryptionKey, row.encrypted_jwk)) as JWK;
    } catch (cause) {
      throw new Error(
        `OIDC signing key ${row.kid} cannot be decrypted with the current SECRET_KEY (was SECRET_KEY changed or the data directory copied without it?)`,
        { cause },
      );
    }
  });
  return { privateJwks: { keys }, publicJwks: { keys: keys.map(toPublicJwk) } };
}
