// A version compared with the active one, field by field (system prompt, template, schemas), as a
// line diff: each line kept, removed (only in the active version) or added (only in this one).
import type { PromptVersion } from '@tollbooth/contract';

export type DiffLine = { kind: 'same' | 'added' | 'removed'; text: string };

/** A diff line with a stable key: its line numbers in the two texts. */
export type KeyedDiffLine = DiffLine & { key: string };

export interface FieldDiff {
  field: string;
  lines: DiffLine[];
}

/** Line diff by longest common subsequence; inputs are prompt-sized, so the table stays small. */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  const table: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ kind: 'same', text: a[i]! });
      i++;
      j++;
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) {
      lines.push({ kind: 'removed', text: a[i++]! });
    } else {
      lines.push({ kind: 'added', text: b[j++]! });
    }
  }
  while (i < a.length) lines.push({ kind: 'removed', text: a[i++]! });
  while (j < b.length) lines.push({ kind: 'added', text: b[j++]! });
  return lines;
}

const schemaText = (schema: unknown) => (schema === null ? 'null' : JSON.stringify(schema, null, 2));

/** The fields where `version` differs from `active`, each with its line diff (from active to version). */
export function diffVersions(active: PromptVersion, version: PromptVersion): FieldDiff[] {
  const fields: [string, string, string][] = [
    ['System Prompt', active.system_prompt, version.system_prompt],
    ['Prompt Template', active.prompt_template, version.prompt_template],
    ['Input Schema', schemaText(active.input_schema), schemaText(version.input_schema)],
    ['Output Schema', schemaText(active.output_schema), schemaText(version.output_schema)],
  ];
  return fields.filter(([, before, after]) => before !== after).map(([field, before, after]) => ({ field, lines: diffLines(before, after) }));
}

/** Keys each line by its position in the old and the new text (unique within one diff). */
export function keyedLines(lines: DiffLine[]): KeyedDiffLine[] {
  let before = 0;
  let after = 0;
  return lines.map((line) => {
    if (line.kind !== 'added') before++;
    if (line.kind !== 'removed') after++;
    return { ...line, key: `${before}:${after}` };
  });
}
