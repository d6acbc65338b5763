// The pure parts of the prompt editor's completion and hover help, so they can be tested without
// Monaco. The template syntax itself (detect, render) is the contract's, the one the server renders with.

import { TEMPLATE_VARIABLE as VARIABLE } from '@tollbooth/contract';

export interface VariableAt {
  name: string;
  /** 1-based columns, end exclusive, as Monaco ranges count them. */
  startColumn: number;
  endColumn: number;
}

/** The {{variable}} under a 1-based column of a line, or null. */
export function variableAt(line: string, column: number): VariableAt | null {
  for (const match of line.matchAll(VARIABLE)) {
    const startColumn = (match.index ?? 0) + 1;
    const endColumn = startColumn + match[0].length;
    if (column >= startColumn && column <= endColumn) return { name: match[1] as string, startColumn, endColumn };
  }
  return null;
}

export interface CompletionContext {
  /** The part of the name typed so far. */
  typed: string;
  /** 1-based columns of the text a completion replaces: the typed part and any word characters after the cursor. */
  startColumn: number;
  endColumn: number;
  /** True when "}}" already follows, so a completion inserts only the name. */
  closed: boolean;
}

/** Where the cursor is inside an open "{{", or null when no variable name is being typed. */
export function completionContext(line: string, column: number): CompletionContext | null {
  const before = line.slice(0, column - 1);
  const after = line.slice(column - 1);
  const open = /\{\{\s*(\w*)$/.exec(before);
  if (!open) return null;
  const typed = open[1] as string;
  const rest = /^\w*/.exec(after)?.[0] ?? '';
  return {
    typed,
    startColumn: column - typed.length,
    endColumn: column + rest.length,
    closed: /^\s*\}\}/.test(after.slice(rest.length)),
  };
}

/** What an editor knows about an input field its {{variables}} refer to. */
export interface DeclaredField {
  name: string;
  type: string;
  description: string;
  required: boolean;
}

/** Markdown for a variable's hover: its declared type and description, or that it is not declared. */
export function describeVariable(name: string, fields: readonly DeclaredField[]): string {
  const field = fields.find((candidate) => candidate.name === name);
  if (!field) return `**{{${name}}}**\n\nNot declared in the input schema`;
  const summary = `**{{${name}}}** — \`${field.type}\`${field.required ? ', required' : ', optional'}`;
  return field.description ? `${summary}\n\n${field.description}` : summary;
}
