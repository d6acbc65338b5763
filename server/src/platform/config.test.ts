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

describe('RETENTION_DAYS, DATABASE_POOL_MODE and DATABASE_READ_URL (issue 59)', () => {
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
  it('reads from DATABASE_READ_URL only beside DATABASE_URL: PGlite has no replica, and the start says so', () => {
    expect(loadConfig(base())).toMatchObject({ databaseReadUrl: null, readStatementTimeoutMs: 5000 });
    expect(() => loadConfig({ ...base(), DATABASE_READ_URL: 'postgres://u@replica:5432/tb' })).toThrow(
      /DATABASE_READ_URL needs DATABASE_URL: the embedded database \(PGlite, no DATABASE_URL\) has no replica/,
    );
    expect(() => loadConfig({ ...base(), DATABASE_URL: 'postgres://u@db:5432/tb', DATABASE_READ_URL: 'replica' })).toThrow(/DATABASE_READ_URL must be a URL/);
    const config = loadConfig({
      ...base(),
      DATABASE_URL: 'postgres://u@db:5432/tb',
      DATABASE_READ_URL: 'postgres://u@replica:5432/tb',
      READ_STATEMENT_TIMEOUT_MS: '250',
    });
    expect(config).toMatchObject({ databaseReadUrl: 'postgres://u@replica:5432/tb', readStatementTimeoutMs: 250 });
    for (const bad of ['0', '99', '600001', 'soon']) {
      expect(() => loadConfig({ ...base(), READ_STATEMENT_TIMEOUT_MS: bad })).toThrow(/READ_STATEMENT_TIMEOUT_MS must be an integer from 100 to 600000/);
    }
  });
});

describe('metrics and tracing settings (issue 58)', () => {
  const base = () => ({ DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tollbooth-config-')), SECRET_KEY: 'a'.repeat(64) });

  it('are off unless asked for, and read the OTEL_* names', () => {
    const off = loadConfig(base());
    expect(off.metrics).toEqual({ enabled: false, token: null, port: null, host: '127.0.0.1', perApp: false });
    expect(off.tracing.tracesUrl).toBeNull();
    const on = loadConfig({
      ...base(),
      METRICS_TOKEN: 'x'.repeat(16),
      METRICS_PER_APP: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key=abc,x-team=t%201',
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    });
    expect(on.metrics).toMatchObject({ enabled: true, perApp: true });
    expect(on.tracing).toEqual({
      tracesUrl: 'http://collector:4318/v1/traces',
      headers: { 'api-key': 'abc', 'x-team': 't 1' },
      serviceName: 'tollbooth',
      sampler: 'traceidratio',
      samplerRatio: 0.25,
      protocol: 'http/protobuf',
    });
    // OTLP/HTTP protobuf by default; JSON when asked, the traces' own setting over the general one.
    expect(loadConfig({ ...base(), OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).tracing.protocol).toBe('http/json');
    expect(loadConfig({ ...base(), OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }).tracing.protocol).toBe(
      'http/protobuf',
    );
    expect(loadConfig({ ...base(), OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom' }).tracing.tracesUrl).toBe('http://c:4318/custom');
    expect(loadConfig({ ...base(), OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }).tracing.tracesUrl).toBeNull();
    expect(loadConfig({ ...base(), METRICS_PORT: '9464' }).metrics).toMatchObject({ enabled: true, port: 9464, host: '127.0.0.1' });
  });

  it('refuse a bad value with one line naming the variable', () => {
    const refused: [Record<string, string>, RegExp][] = [
      [{ METRICS_TOKEN: 'short' }, /^ {2}- METRICS_TOKEN must be 16 to 512 printable characters/m],
      [{ METRICS_TOKEN: 'has a space in it, sixteen+' }, /METRICS_TOKEN must be/],
      [{ METRICS_PORT: '70000' }, /METRICS_PORT must be an integer from 1 to 65535 \(got "70000"\)/],
      [{ METRICS_PORT: '3000' }, /METRICS_PORT must differ from PORT \(3000\)/],
      [{ METRICS_PER_APP: 'maybe' }, /METRICS_PER_APP must be true or false \(got "maybe"\)/],
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/],
      [{ OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER must be one of always_on, always_off/],
      [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf or http\/json/],
      [
        { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' },
        /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http\/protobuf or http\/json: Tollbooth exports OTLP over HTTP, not gRPC \(got "grpc"\)/,
      ],
      [{ OTEL_TRACES_SAMPLER_ARG: '2' }, /OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1 \(got "2"\)/],
      [{ OTEL_EXPORTER_OTLP_HEADERS: 'novalue' }, /OTEL_EXPORTER_OTLP_HEADERS must be comma-separated name=value pairs/],
    ];
    for (const [env, message] of refused) expect(() => loadConfig({ ...base(), ...env }), JSON.stringify(env)).toThrow(message);
  });
});
