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
