// The server's import rule (../shared/style.md, issue 9): a feature folder (one with a routes.ts) may
// use another feature only through its public modules, so a feature's queries, caches and helpers
// can change without reading the rest of the server. The rule, read from the import graph:
//
// - A feature's public modules are its services: `service.ts` and `*-service.ts` at the feature's
//   root (they may re-export the types others need, as apps/service.ts does with AppRow), plus
//   `auth/plugin.ts` (the authentication hook every route declares, and its AuthContext) and
//   `billing/paid-call/service.ts` (billing's one paid-call charging interface). A service in a
//   feature's sub-folder (billing's rooms: paid-call/, payments/, payouts/, statements/) is the
//   feature's own unless it is named here: only the composition roots reach the others.
// - Type-only imports follow the same rule: a row type another feature needs is re-exported by the
//   service, so the service decides what is public.
// - Shared layers (db, http, crypto, providers, web-app, the top-level modules such as config.ts
//   and errors.ts) import no feature at all: no cycle through them. app.ts and main.ts compose
//   the features and may import anything; so may tests and test-support.
// - routes.ts files receive services, never the database.
// - No import cycle anywhere in the server, type-only imports included.
//
// KNOWN_EXCEPTIONS lists the imports that break the rule (none today), each with its reason. The test
// fails when a new one appears and when a listed one is gone (then delete its line), so the list
// only shrinks.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = import.meta.dirname;

const KNOWN_EXCEPTIONS: { from: string; to: string; why: string }[] = [];

const COMPOSITION_ROOTS = new Set(['app.ts', 'main.ts']);
const EXTRA_PUBLIC_MODULES = new Set(['auth/plugin.ts', 'billing/paid-call/service.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'template' || name === 'migrations' ? [] : sourceFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Every relative module a file imports or re-exports, statically or dynamically. */
function importedModules(code: string): string[] {
  const specifiers = [
    ...code.matchAll(/^\s*(?:import|export)\s[^'";]*?\sfrom\s*['"]([^'"]+)['"]/gms),
    ...code.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
    ...code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((match) => match[1]!);
  return specifiers.filter((specifier) => specifier.startsWith('.'));
}

const features = readdirSync(SRC).filter((name) => statSync(path.join(SRC, name)).isDirectory() && existsFile(path.join(SRC, name, 'routes.ts')));

function existsFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The feature a src-relative path belongs to, or null for a shared layer or top-level module. */
function featureOf(relative: string): string | null {
  const [first, ...rest] = relative.split('/');
  return rest.length > 0 && features.includes(first!) ? first! : null;
}

function isPublicModule(relative: string): boolean {
  if (EXTRA_PUBLIC_MODULES.has(relative)) return true;
  const parts = relative.split('/');
  return parts.length === 2 && /^(?:.+-)?service\.ts$/.test(parts[1]!);
}

interface Edge {
  from: string;
  to: string;
}

function importGraph(): Edge[] {
  return sourceFiles(SRC).flatMap((file) => {
    const from = path.relative(SRC, file).split(path.sep).join('/');
    if (from.startsWith('test-support/')) return [];
    return importedModules(readFileSync(file, 'utf8')).map((specifier) => ({
      from,
      to: path
        .relative(SRC, path.resolve(path.dirname(file), specifier))
        .split(path.sep)
        .join('/'),
    }));
  });
}

/** The imports the rule refuses. */
function ruleBreaks(edges: Edge[]): Edge[] {
  return edges.filter(({ from, to }) => {
    const target = featureOf(to);
    if (target === null || COMPOSITION_ROOTS.has(from)) return false;
    const source = featureOf(from);
    if (source === target) return false;
    // A shared layer imports no feature; a feature imports another one through its public modules.
    return source === null || !isPublicModule(to);
  });
}

const key = ({ from, to }: Edge) => `${from} -> ${to}`;

/** The modules on some import cycle, each cycle once (its members sorted); [] when the graph has none. */
function importCycles(edges: Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  // Tarjan's strongly connected components: a component of more than one module is a cycle.
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (module: string) => {
    order.set(module, order.size);
    low.set(module, order.get(module)!);
    stack.push(module);
    onStack.add(module);
    for (const target of next.get(module) ?? []) {
      if (!order.has(target)) {
        visit(target);
        low.set(module, Math.min(low.get(module)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(module, Math.min(low.get(module)!, order.get(target)!));
    }
    if (low.get(module) !== order.get(module)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== module);
    if (component.length > 1 || (next.get(module) ?? []).includes(module)) cycles.push(component.sort());
  };
  for (const module of next.keys()) if (!order.has(module)) visit(module);
  return cycles;
}

describe('feature boundaries on the server', () => {
  const edges = importGraph();

  it('reads the features and their imports', () => {
    // A broken reader would pass everything: the graph must hold the imports we know exist.
    expect(features).toEqual(expect.arrayContaining(['apps', 'auth', 'billing', 'gateway', 'prompts', 'workflows']));
    expect(features).not.toContain('providers');
    expect(edges.map(key)).toEqual(expect.arrayContaining(['app.ts -> gateway/service.ts', 'downloads/service.ts -> apps/service.ts']));
    expect(importedModules("import type {\n  A,\n  B,\n} from '../x/queries.ts';\nexport { c } from './c.ts';\nawait import('../y/z.ts');")).toEqual([
      '../x/queries.ts',
      './c.ts',
      '../y/z.ts',
    ]);
  });

  it('refuses what the rule refuses', () => {
    const refused = [
      { from: 'catalog/service.ts', to: 'downloads/app-description.ts' },
      { from: 'keys/queries.ts', to: 'auth/queries.ts' },
      { from: 'providers/registry.ts', to: 'apps/service.ts' },
      { from: 'platform/config.ts', to: 'billing/service.ts' },
      { from: 'openai/service.ts', to: 'dify/queries.ts' },
      { from: 'gateway/service.ts', to: 'billing/paid-call/leases.ts' },
      { from: 'profile/service.ts', to: 'billing/payouts/service.ts' },
    ];
    expect(ruleBreaks(refused)).toEqual(refused);
    expect(
      ruleBreaks([
        { from: 'keys/service.ts', to: 'auth/users-service.ts' },
        { from: 'billing/payments/service.ts', to: 'apps/service.ts' },
        { from: 'gateway/service.ts', to: 'billing/paid-call/service.ts' },
        { from: 'billing/payments/webhook.ts', to: 'billing/payouts/ledger.ts' },
        { from: 'apps/routes.ts', to: 'auth/plugin.ts' },
        { from: 'openai/service.ts', to: 'gateway/service.ts' },
        { from: 'app.ts', to: 'gateway/idempotency.ts' },
        { from: 'apps/service.ts', to: 'providers/workflows/safe-http.ts' },
        // Billing writes webhook events in the ledger change's transaction through this one module (decision 0097).
        { from: 'billing/payments/ledger.ts', to: 'webhooks/outbox-service.ts' },
      ]),
    ).toEqual([]);
  });

  it('a feature uses another only through its services; shared layers use no feature', () => {
    const known = new Set(KNOWN_EXCEPTIONS.map(key));
    const breaks = [...new Set(ruleBreaks(edges).map(key))].sort();
    expect(
      breaks.filter((edge) => !known.has(edge)),
      'new imports of another feature’s internals',
    ).toEqual([]);
    expect(
      [...known].filter((edge) => !breaks.includes(edge)),
      'listed exceptions that no longer occur: delete them from KNOWN_EXCEPTIONS',
    ).toEqual([]);
  });

  it('has no import cycle, type-only imports included', () => {
    expect(
      importCycles([
        { from: 'a.ts', to: 'b.ts' },
        { from: 'b.ts', to: 'c.ts' },
        { from: 'c.ts', to: 'a.ts' },
        { from: 'c.ts', to: 'd.ts' },
      ]),
    ).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(importCycles(edges)).toEqual([]);
  });

  it('has no cycle between folders either: the folders stand in layers, each using only those below it', () => {
    // A folder (or a file at the src root) is one node: db/ and crypto/ at the bottom, then platform/,
    // providers/, http/, the features, app.ts, lifecycle/ and main.ts (docs/README.md draws them).
    // A cycle here is an import that points up a layer, such as a shared layer using a feature.
    const folderOf = (relative: string) => relative.split('/')[0]!;
    const folderEdges = edges.map(({ from, to }) => ({ from: folderOf(from), to: folderOf(to) })).filter(({ from, to }) => from !== to);
    expect(
      importCycles([
        { from: 'auth', to: 'keys' },
        { from: 'keys', to: 'auth' },
      ]),
    ).toEqual([['auth', 'keys']]);
    expect(folderEdges.map(key)).toEqual(expect.arrayContaining(['gateway -> billing', 'providers -> platform', 'app.ts -> http']));
    expect(importCycles(folderEdges)).toEqual([]);
    for (const shared of ['platform', 'db', 'crypto', 'providers']) {
      expect(
        folderEdges.filter(({ from, to }) => from === shared && !['platform', 'db', 'crypto'].includes(to)).map(key),
        `${shared}/ uses only the layers below it`,
      ).toEqual([]);
    }
  });

  it('routes receive services, never the database', () => {
    const routesWithDb = edges.filter(({ from, to }) => /(?:^|\/|-)routes\.ts$/.test(from) && to.startsWith('db/')).map(key);
    expect(routesWithDb).toEqual([]);
  });
});
