import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from './password.ts';

describe('password hashing', () => {
  it('stores scrypt parameters, a per-password salt and the hash', async () => {
    const first = await hashPassword('correct horse battery');
    const second = await hashPassword('correct horse battery');
    expect(first).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(first).not.toBe(second);
    expect(await verifyPassword('correct horse battery', first)).toBe(true);
    expect(await verifyPassword('correct horse battery', second)).toBe(true);
  });

  it('rejects a wrong password and unreadable stored values', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(await verifyPassword('Correct horse battery', stored)).toBe(false);
    expect(await verifyPassword('correct horse battery', 'plain-text')).toBe(false);
    expect(await verifyPassword('correct horse battery', 'scrypt$x$8$1$c2FsdA$aGFzaA')).toBe(false);
    expect(await verifyPassword('correct horse battery', stored.replace(/\$[\w-]+$/, '$'))).toBe(false);
  });

  it('verifies hashes made with other cost parameters', async () => {
    // N = 2^14 written by hand in the stored format: the parameters come from the stored value.
    const { scryptSync } = await import('node:crypto');
    const salt = Buffer.from('0123456789abcdef');
    const hash = scryptSync('old password', salt, 32, { N: 16384, r: 8, p: 1 });
    const stored = `scrypt$16384$8$1$${salt.toString('base64url')}$${hash.toString('base64url')}`;
    expect(await verifyPassword('old password', stored)).toBe(true);
  });
});
