// Creator secrets (workflow provider API keys) are encrypted at rest with AES-256-GCM under a key
// derived from SECRET_KEY, and only ever shown masked.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

function deriveKey(secretKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), 'tollbooth:secrets:v1', 32));
}

export function encryptSecret(secretKey: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(secretKey), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
}

export function decryptSecret(secretKey: Buffer, sealed: string): string {
  const [version, payload] = sealed.split(':', 2);
  if (version !== VERSION || !payload) throw new Error('unknown secret format');
  const raw = Buffer.from(payload, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', deriveKey(secretKey), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

/** Shows only the last four characters: "••••••••wxyz". Short secrets are hidden entirely. */
export function maskSecret(secret: string): string {
  if (secret.length <= 8) return '••••••••';
  return `••••••••${secret.slice(-4)}`;
}
