// The secret key that encrypts stored provider keys and signs sessions: SECRET_KEY, or without it
// one generated on the first start and kept under DATA_DIR (config.ts reads it, main.ts keeps it).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A key whose 32 bytes take fewer than 16 distinct values was not drawn at random ("aaaa…",
 * "0123456789abcdef" repeated, a word typed twice): 32 random bytes take ~30 distinct values, and
 * fewer than 16 about once in 10^9 draws.
 */
export function isWeakSecretKey(key: Buffer): boolean {
  return new Set(key).size < 16;
}

export function parseSecretKey(raw: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, 'hex');
  const decoded = Buffer.from(raw, 'base64');
  return decoded.length === 32 ? decoded : null;
}

/** The key an earlier start generated into DATA_DIR (SECRET_KEY unset), or null when there is none. */
export function readSecretKeyFile(dataDir: string, refuse: (problem: string) => Error): Buffer | null {
  const file = path.join(dataDir, 'secret-key');
  if (!existsSync(file)) return null;
  const key = parseSecretKey(readFileSync(file, 'utf8').trim());
  if (key) return key;
  throw refuse(`${file} does not hold a valid key; remove it or set SECRET_KEY`);
}

/**
 * Without SECRET_KEY, one is generated on the first start and kept under DATA_DIR so restarts can
 * still decrypt. main.ts calls this once the database is reachable and on a schema this code knows,
 * so a start that is refused writes nothing.
 */
export function keepSecretKey(config: { secretKey: Buffer; dataDir: string }): void {
  if (config.secretKey.length > 0) return;
  mkdirSync(config.dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(path.join(config.dataDir, 'secret-key'), key.toString('hex'), { mode: 0o600, flag: 'wx' });
  config.secretKey = key;
}
