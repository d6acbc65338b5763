// The Standard Webhooks signature (https://www.standardwebhooks.com/): the secret is whsec_ + base64
// of random bytes; each delivery carries webhook-id (the event's id, the same on every attempt, so a
// receiver can drop duplicates), webhook-timestamp (seconds, of this attempt) and webhook-signature
// "v1,<base64 HMAC-SHA256 of `${id}.${timestamp}.${body}` keyed by the secret's bytes>". Existing
// verifiers work unmodified (webhooks.test.ts checks with the registry's `standardwebhooks`).
import { createHmac, randomBytes } from 'node:crypto';

export const newSigningSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

export function signatureOf(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

export function signedHeaders(secret: string, id: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'Tollbooth-Webhooks/1',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureOf(secret, id, timestamp, body),
  };
}
