// compose.yaml and the Dockerfile (issue 57, items 1-2). Docker Compose cannot run on these
// machines, so compose.yaml is validated against the Compose Specification's own JSON schema
// (compose-spec.schema.json, the compose-spec project's compose_spec.json as the dclint package
// ships it), and checked against what the README and the Dockerfile promise: every configuration
// variable reaches the server, the secrets are required, the probes and the drain are wired.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface Service {
  image?: string;
  build?: { context: string; args?: Record<string, string> };
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  profiles?: string[];
  volumes?: string[];
  stop_grace_period?: string;
  read_only?: boolean;
}
const compose = parse(read('compose.yaml')) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const tollbooth = compose.services.tollbooth!;

/** The backticked names in the first column of the README's configuration table (config.test.ts checks them against config.ts). */
function documentedVariables(): string[] {
  const readme = read('README.md');
  const start = readme.indexOf('## Configuration');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [
    ...new Set(
      section
        .split('\n')
        .filter((line) => line.startsWith('|'))
        .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]!)),
    ),
  ];
}

/** The variables the Dockerfile's last stage sets with ENV. */
function imageVariables(): Record<string, string> {
  const dockerfile = read('Dockerfile');
  const lastStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const env = /\nENV ((?:[^\n]*\\\n)*[^\n]*)/.exec(lastStage)![1]!.replace(/\\\n/g, ' ');
  return Object.fromEntries([...env.matchAll(/([A-Z_]+)=(\S+)/g)].map((match) => [match[1]!, match[2]!]));
}

describe('compose.yaml', () => {
  it('is valid against the Compose Specification schema', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    // A draft-07 schema (Ajv's own draft), which names its meta-schema by a URL Ajv does not register.
    const { $schema: _draft07, ...schema } = JSON.parse(readFileSync(path.join(import.meta.dirname, 'compose-spec.schema.json'), 'utf8'));
    const validate = ajv.compile(schema);
    expect(validate(compose), JSON.stringify(validate.errors, null, 2)).toBe(true);
    // The schema is not a formality: a misspelt key fails it.
    expect(validate({ services: { tollbooth: { ...tollbooth, helthcheck: {} } } })).toBe(false);
  });

  it('gives the server every documented variable, refusing to start without its secrets', () => {
    const image = imageVariables();
    expect(image).toMatchObject({ NODE_ENV: 'production', PORT: '8080', DATA_DIR: '/data' });
    const given = new Set([...Object.keys(tollbooth.environment ?? {}), ...Object.keys(image)]);
    expect(documentedVariables().filter((name) => !given.has(name))).toEqual([]);
    for (const [name, value] of Object.entries(tollbooth.environment ?? {})) {
      if (!['PUBLIC_URL', 'SECRET_KEY', 'DATABASE_URL'].includes(name)) expect(value, name).toBe(`\${${name}:-}`);
    }
    expect(tollbooth.environment!.SECRET_KEY).toMatch(/^\$\{SECRET_KEY:\?/);
    expect(tollbooth.environment!.DATABASE_URL).toBe(`postgres://tollbooth:\${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}@postgres:5432/tollbooth`);
    expect(compose.services.postgres!.environment!.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
  });

  it('waits for a healthy PostgreSQL, checks /readyz, lets the drain finish, and keeps data in named volumes', () => {
    expect(tollbooth.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(tollbooth.healthcheck!.test.join(' ')).toContain('http://127.0.0.1:8080/readyz');
    expect(Number.parseInt(tollbooth.stop_grace_period!, 10)).toBeGreaterThan(30);
    expect(tollbooth.read_only).toBe(true);
    expect(compose.services.redis!.profiles).toEqual(['redis']);
    const mounted = Object.values(compose.services)
      .flatMap((service) => service.volumes ?? [])
      .map((volume) => volume.split(':')[0]!);
    // Data in named volumes; the one bind mount is the metrics profile's read-only Prometheus configuration (issue 58).
    const named = mounted.filter((source) => !source.startsWith('./'));
    expect(mounted.filter((source) => source.startsWith('./'))).toEqual(['./deploy/prometheus/prometheus.yml']);
    expect(named.sort()).toEqual(['postgres-data', 'prometheus-data', 'tollbooth-data']);
    expect(Object.keys(compose.volumes).sort()).toEqual(named.sort());
    expect(compose.services.prometheus!.profiles).toEqual(['metrics']);
  });
});

describe('the Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  it('builds on a BASE_IMAGE argument and runs one node process as a non-root user', () => {
    expect(dockerfile).toMatch(/^ARG BASE_IMAGE=node:\d+-bookworm-slim$/m);
    expect(dockerfile.match(/^FROM \$\{BASE_IMAGE\}/gm)).toHaveLength(3);
    expect(dockerfile).toMatch(/^USER tollbooth$/m);
    expect(dockerfile).toMatch(/^CMD \["node", .*"server\/dist\/main\.js"\]$/m);
    expect(dockerfile).toMatch(/^VOLUME \/data$/m);
  });
});
