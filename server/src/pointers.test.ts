// Every pointer resolves (issue 56, "A map for a newcomer"): a comment, a README or a design page
// that names a file (`billing/paid-call/service.ts`, `docs/design.md`) or a decision record
// ("decision 0058") names one that exists. History is the exception that proves it: decision records
// and the bench log keep the paths they were written with, and docs/moved-files.md says where each
// moved file went, so their pointers resolve through it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SHARED = path.resolve(REPO, '../shared');
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', 'data', '.tmp', 'test-results', 'playwright-report', 'coverage']);
// Files that exist only once something ran (a build, a bench, an installed package, a generated zip),
// and patterns that stand for many files. Each is named where it is used.
const NOT_IN_THE_TREE = new Set([
  '.vite/manifest.json', // web's build
  'openapi.json', // written by npm run lint:openapi, served at /api/openapi.json
  '.tmp/openapi.json',
  'index.d.ts', // dify-client's types
  'compose_spec.json', // the Compose specification, vendored as deploy/compose-spec.schema.json
  'tap.json', // bench/gateway's profile tap output
  'settlements.json', // bench/gateway's settlement tap output
  'landing-1.json', // bench/web's traces
  'dashboard-1.json',
  'src/app-description.json', // inside a downloaded app's zip
  'NNNN_name.sql', // the pattern of a migration's name
  'NNNN-kebab-title.md', // the pattern of a decision record's name
]);

function walk(dir: string, files: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if ((!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith('.')) || entry.name === '.ci') walk(path.join(dir, entry.name), files);
    } else files.push(path.relative(REPO, path.join(dir, entry.name)));
  }
  return files;
}

const files = walk(REPO);
const fileSet = new Set(files);
const decisionNumbers = new Set(files.flatMap((file) => /^docs\/decisions\/(\d{4})-/.exec(file)?.[1] ?? []));
const moved = new Map(
  [...readFileSync(path.join(REPO, 'docs/moved-files.md'), 'utf8').matchAll(/^\| `([^`]+)` \| `([^`]+)` \|$/gm)].map((row) => [row[1]!, row[2]!]),
);

const POINTER = /(?<![\w@/.:$-])((?:\.{1,2}\/)*[\w.-]+(?:\/[\w.-]+)*\.(?:tsx?|md|sql|mjs|json|ya?ml|sh))(?![\w/])/g;
const DECISION = /\bdecisions?\s+((?:\d{4}(?:,\s*|\s+and\s+|\s*\/\s*)?)+)/gi;
const ROOTS = ['', 'server/src/', 'web/src/', 'contract/src/', 'server/', 'web/', 'docs/', 'bench/', 'e2e/'];

/** History keeps its paths: decision records, the bench log, tests and benches that name an old path on purpose. */
function isHistory(file: string): boolean {
  return file.startsWith('docs/decisions/') || file.startsWith('server/src/db/migrations/') || file.startsWith('bench/') || file.endsWith('.test.ts');
}

function resolves(pointer: string, file: string): boolean {
  if (NOT_IN_THE_TREE.has(pointer) || pointer.startsWith('-') || pointer.startsWith('.test.')) return true;
  const shared = /^(?:\.\.\/)*shared\/(.+)$/.exec(pointer)?.[1];
  if (shared) return !existsSync(SHARED) || existsSync(path.join(SHARED, shared)); // the spec beside the repository
  const candidates = [path.normalize(path.join(path.dirname(file), pointer)), ...ROOTS.map((root) => path.normalize(root + pointer))];
  if (candidates.some((candidate) => fileSet.has(candidate))) return true;
  const bare = pointer.replace(/^(\.{1,2}\/)+/, '');
  if (files.some((known) => known.endsWith(`/${bare}`))) return true;
  if (!pointer.includes('/') && files.some((known) => path.basename(known) === pointer)) return true;
  return isHistory(file) && [...moved.keys()].some((was) => was === pointer || was.endsWith(`/${pointer}`));
}

/** The lines of a file that speak: all of a Markdown page, the comments of code. */
function speakingLines(file: string, text: string): [number, string][] {
  const lines = text.split('\n').map((line, index): [number, string] => [index + 1, line]);
  if (file.endsWith('.md')) return lines;
  return lines.flatMap(([number, line]): [number, string][] => {
    const trimmed = line.trim();
    if (/^(\/\/|\/?\*|#|--)/.test(trimmed)) return [[number, trimmed]];
    const comment = line.indexOf(' // ');
    return comment >= 0 ? [[number, line.slice(comment)]] : [];
  });
}

function unresolvedPointers(): string[] {
  const problems: string[] = [];
  for (const file of files) {
    if (!/\.(tsx?|mjs|md|sql|sh|ya?ml)$/.test(file) || file === 'docs/moved-files.md') continue;
    if (file.startsWith('server/src/downloads/template/')) continue; // a generated app's own files, pointing within the zip
    for (const [number, raw] of speakingLines(file, readFileSync(path.join(REPO, file), 'utf8'))) {
      const line = raw.replace(/https?:\/\/\S+/g, '');
      for (const match of line.matchAll(POINTER)) {
        if (!resolves(match[1]!, file)) problems.push(`${file}:${number}: ${match[1]}`);
      }
      for (const match of line.matchAll(DECISION)) {
        for (const decision of match[1]!.match(/\d{4}/g) ?? []) {
          if (!decisionNumbers.has(decision)) problems.push(`${file}:${number}: decision ${decision}`);
        }
      }
    }
  }
  return problems;
}

describe('pointers in comments and docs', () => {
  it('every file or decision a comment, a README or a design page names exists (or, in history, moved: docs/moved-files.md)', () => {
    expect(unresolvedPointers()).toEqual([]);
  });

  it('every file the moved-files map leads to exists, and the map holds no file that still exists where it was', () => {
    expect(moved.size).toBeGreaterThan(50);
    const problems = [...moved].flatMap(([was, now]) => [
      ...(fileSet.has(now) ? [] : [`${was} → ${now}: not found`]),
      ...(fileSet.has(was) ? [`${was}: still exists`] : []),
    ]);
    expect(problems).toEqual([]);
  });

  it('finds a pointer that leads nowhere, and lets history name a moved file', () => {
    expect(resolves('billing/paid-call/service.ts', 'server/src/gateway/service.ts')).toBe(true);
    expect(resolves('billing/no-such-file.ts', 'server/src/gateway/service.ts')).toBe(false);
    expect(resolves('billing/paid-calls.ts', 'server/src/gateway/service.ts')).toBe(false);
    expect(resolves('billing/paid-calls.ts', 'docs/decisions/0016-billing-owns-the-paid-call.md')).toBe(true);
  });
});
