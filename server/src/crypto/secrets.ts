// Creator secrets (workflow provider API keys) and the OIDC signing keys are encrypted at rest with
// AES-256-GCM. Keys derived from the one SECRET_KEY, each for one purpose, so every process sharing the secret
// derives the same keys and no per-process random state is needed.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export type KeyPurpose = 'oidc-cookies' | 'oidc-signing-keys' | 'provider-secrets';

/** 32 bytes derived from the secret key with HKDF-SHA256; the purpose is the HKDF info. */
export function deriveKey(secretKey: Buffer, purpose: KeyPurpose): Buffer {
  if (secretKey.length < 32) throw new Error('secret key must be at least 32 bytes');
  return Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), `tollbooth/${purpose}`, 32));
}

const VERSION = 'v1';

/** AES-256-GCM; the result is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function encryptText(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

/** Throws when the text was not produced by encryptText with this key. */
export function decryptText(key: Buffer, encrypted: string): string {
  const [version, iv, tag, ciphertext] = encrypted.split('.');
  if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined) {
    throw new Error('unsupported encrypted value format');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

export const encryptSecret = (secretKey: Buffer, plaintext: string) => encryptText(deriveKey(secretKey, 'provider-secrets'), plaintext);
export const decryptSecret = (secretKey: Buffer, sealed: string) => decryptText(deriveKey(secretKey, 'provider-secrets'), sealed);

/** Shows only the last four characters: "••••••••wxyz". Short secrets are hidden entirely. */
export function maskSecret(secret: string): string {
  if (secret.length <= 8) return '••••••••';
  return `••••••••${secret.slice(-4)}`;
}
