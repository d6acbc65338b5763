// The contract's modules import one another without a cycle, type-only imports included (issue 56
// item 3: demo-model.ts and system.ts imported each other; both now import provider-kind.ts).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const here = import.meta.dirname;

/** Each module's contract-local imports (`./<name>.ts`), from its source text. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of readdirSync(here).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))) {
    const text = readFileSync(path.join(here, file), 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)\b[^;]*?from\s+'\.\/([^']+)'/gms)].map((match) => match[1] ?? '');
    graph.set(file, targets);
  }
  return graph;
}

/** One path around each cycle found by a depth-first walk ([] when there is none). */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const walk = (module: string, trail: string[]) => {
    state.set(module, 'open');
    for (const next of graph.get(module) ?? []) {
      if (state.get(next) === 'open') found.push([...trail.slice(trail.indexOf(next)), module, next]);
      else if (!state.has(next)) walk(next, [...trail, module]);
    }
    state.set(module, 'done');
  };
  for (const module of graph.keys()) if (!state.has(module)) walk(module, []);
  return found;
}

describe('the contract modules', () => {
  it('import one another without a cycle', () => {
    const graph = importGraph();
    expect(graph.get('system.ts')).toContain('demo-model.ts');
    expect(cycles(graph)).toEqual([]);
  });
});
