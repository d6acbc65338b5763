// The README's configuration table documents exactly the environment variables config.ts reads.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

/** Every variable name loadConfig looks up, whichever branch (embedded or external issuer) it takes. */
function variablesRead(): string[] {
  const read = new Set<string>();
  const recording = (values: Record<string, string>) =>
    new Proxy(values, {
      get(target, name) {
        if (typeof name === 'string') read.add(name);
        return target[name as string];
      },
    });
  const base = { DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tollbooth-config-')), SECRET_KEY: 'a'.repeat(64), MODEL_TABLE: '{}' };
  loadConfig(recording(base));
  loadConfig(recording({ ...base, OIDC_ISSUER: 'https://id.example.com', OIDC_CLIENT_ID: 'web', OIDC_AUDIENCE: 'api' }));
  return [...read].sort();
}

/** The backticked upper-case names in the first column of the README's "## Configuration" table. */
function variablesDocumented(): string[] {
  const readme = readFileSync(path.resolve(import.meta.dirname, '../../../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1));
  const names = new Set<string>();
  for (const line of section.split('\n')) {
    const firstCell = line.startsWith('|') ? line.split('|')[1] : undefined;
    for (const match of firstCell?.matchAll(/`([A-Z][A-Z0-9_]+)`/g) ?? []) names.add(match[1]!);
  }
  return [...names].sort();
}

describe('the README configuration table', () => {
  it('lists every environment variable config.ts reads, and no other', () => {
    const read = variablesRead();
    expect(read).toContain('RATE_LIMIT_PER_MINUTE');
    expect(variablesDocumented()).toEqual(read);
  });
});

describe('SETTLEMENT_GATHER_MS', () => {
  const base = () => ({ DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tollbooth-config-')), SECRET_KEY: 'a'.repeat(64) });
  it('is 12 ms unless set (half of ANSWER_JOURNAL_COPY_AFTER_MS where that is shorter), 0 turns it off, and a set one must stay below ANSWER_JOURNAL_COPY_AFTER_MS, naming both', () => {
    expect(loadConfig(base()).gateway.settlementGatherMs).toBe(12);
    expect(loadConfig({ ...base(), ANSWER_JOURNAL_COPY_AFTER_MS: '20' }).gateway.settlementGatherMs).toBe(10);
    expect(loadConfig({ ...base(), ANSWER_JOURNAL_COPY_AFTER_MS: '11' }).gateway.settlementGatherMs).toBe(5);
    expect(loadConfig({ ...base(), SETTLEMENT_GATHER_MS: '0' }).gateway.settlementGatherMs).toBe(0);
    expect(loadConfig({ ...base(), SETTLEMENT_GATHER_MS: '20' }).gateway.settlementGatherMs).toBe(20);
    expect(() => loadConfig({ ...base(), SETTLEMENT_GATHER_MS: '100' })).toThrow(/SETTLEMENT_GATHER_MS must be below ANSWER_JOURNAL_COPY_AFTER_MS \(100 ms\)/);
    expect(loadConfig({ ...base(), SETTLEMENT_GATHER_MS: '500', ANSWER_JOURNAL_COPY_AFTER_MS: '1000' }).gateway.settlementGatherMs).toBe(500);
    expect(() => loadConfig({ ...base(), SETTLEMENT_GATHER_MS: '-1' })).toThrow(/SETTLEMENT_GATHER_MS must be an integer/);
  });
});

describe('RETENTION_DAYS and DATABASE_POOL_MODE (issue 59)', () => {
  const base = () => ({ DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tollbooth-config-')), SECRET_KEY: 'a'.repeat(64) });
  it('keeps every call unless RETENTION_DAYS is set to a number of days, naming it when it is not one', () => {
    expect(loadConfig(base()).historyRetentionDays).toBeNull();
    expect(loadConfig({ ...base(), RETENTION_DAYS: '400' }).historyRetentionDays).toBe(400);
    for (const bad of ['0', '-3', 'forever', '1.5']) expect(() => loadConfig({ ...base(), RETENTION_DAYS: bad })).toThrow(/RETENTION_DAYS must be an integer/);
  });
  it('pools by session unless told; transaction pooling needs DATABASE_URL and a direct DATABASE_LISTEN_URL', () => {
    const url = 'postgres://u@pgbouncer:6432/tb';
    expect(loadConfig({ ...base(), DATABASE_URL: url }).databasePoolMode).toBe('session');
    expect(() => loadConfig({ ...base(), DATABASE_URL: url, DATABASE_POOL_MODE: 'statement' })).toThrow(/DATABASE_POOL_MODE must be session or transaction/);
    expect(() => loadConfig({ ...base(), DATABASE_POOL_MODE: 'transaction' })).toThrow(/DATABASE_POOL_MODE=transaction needs DATABASE_URL/);
    expect(() => loadConfig({ ...base(), DATABASE_URL: url, DATABASE_POOL_MODE: 'transaction' })).toThrow(/needs DATABASE_LISTEN_URL/);
    const config = loadConfig({ ...base(), DATABASE_URL: url, DATABASE_POOL_MODE: 'transaction', DATABASE_LISTEN_URL: 'postgres://u@db:5432/tb' });
    expect(config).toMatchObject({ databasePoolMode: 'transaction', databaseListenUrl: 'postgres://u@db:5432/tb' });
  });
});
