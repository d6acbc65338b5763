// The spec's template syntax (section 9), once for server and web: {{variable}} with word
// characters, whitespace inside the braces tolerated. The server renders with it; the web detects
// variables with it while the template is typed. Rendering reports problems as values, never by
// crashing on odd input.

/** A {{variable}}; group 1 is its name. Global: use with matchAll/replace, never exec in a loop. */
export const TEMPLATE_VARIABLE = /\{\{\s*(\w+)\s*\}\}/g;

/** Distinct variable names in order of first appearance. */
export function detectVariables(template: string): string[] {
  const seen = new Set<string>();
  for (const match of template.matchAll(TEMPLATE_VARIABLE)) seen.add(match[1]!);
  return [...seen];
}

/**
 * Variable names a call cannot give a value: a JSON body with a "__proto__" key is refused by the
 * server's parser (a prototype-pollution guard), so a template using one could never be called.
 * Saving and testing refuse them with a 400 naming them (decision 0090).
 */
export const UNUSABLE_VARIABLE_NAMES: readonly string[] = ['__proto__'];

/** Why a template's variable names cannot be used ("{{__proto__}} cannot be a variable…"), or null. */
export function findUnusableVariables(template: string): string | null {
  const unusable = detectVariables(template).filter((name) => UNUSABLE_VARIABLE_NAMES.includes(name));
  if (unusable.length === 0) return null;
  const list = unusable.map((name) => `{{${name}}}`).join(', ');
  return `${list} cannot be a variable name: a call's JSON body cannot carry an input named ${unusable.map((name) => `"${name}"`).join(', ')}; rename it`;
}

/**
 * Sets an own, enumerable property whatever its name: `record[name] = value` with a name such as
 * "__proto__" would replace the prototype instead, and the name would be lost (issue 56 item 6).
 */
export function setOwn<T>(record: Record<string, T>, name: string, value: T): void {
  Object.defineProperty(record, name, { value, writable: true, enumerable: true, configurable: true });
}

/** Describes a stray "{{" or "}}" that is not part of a well-formed {{variable}}, or null. */
export function findBraceProblem(template: string): string | null {
  const stripped = template.replace(TEMPLATE_VARIABLE, '');
  const open = stripped.indexOf('{{');
  if (open !== -1) return `Unbalanced braces: "{{" at position ${open + 1} does not close a {{variable}}`;
  const close = stripped.indexOf('}}');
  if (close !== -1) return `Unbalanced braces: "}}" at position ${close + 1} does not open a {{variable}}`;
  return null;
}

export type RenderResult = { ok: true; text: string; variables: string[] } | { ok: false; error: string; variables: string[]; text: string };

/** A template read once: the text around its {{variable}}s, each occurrence as written, and its problems. */
interface CompiledTemplate {
  /** The text between occurrences: one more than there are occurrences. */
  literals: string[];
  /** Each occurrence's name and its text as written (kept when its input is missing). */
  occurrences: { name: string; whole: string }[];
  variables: string[];
  braceProblem: string | null;
}

/** Templates are few (one per prompt version) and rendered on every paid call: each is read once. */
const compiledTemplates = new Map<string, CompiledTemplate>();
const MAX_COMPILED_TEMPLATES = 2_000;
/** Test runs render unsaved drafts too: the kept templates hold at most this many characters in all. */
const MAX_COMPILED_CHARACTERS = 4_000_000;
let compiledCharacters = 0;

function compileTemplate(template: string): CompiledTemplate {
  let compiled = compiledTemplates.get(template);
  if (compiled) return compiled;
  const literals: string[] = [];
  const occurrences: CompiledTemplate['occurrences'] = [];
  let from = 0;
  for (const match of template.matchAll(TEMPLATE_VARIABLE)) {
    literals.push(template.slice(from, match.index));
    occurrences.push({ name: match[1]!, whole: match[0] });
    from = match.index + match[0].length;
  }
  literals.push(template.slice(from));
  compiled = { literals, occurrences, variables: detectVariables(template), braceProblem: findBraceProblem(template) };
  if (compiledTemplates.size >= MAX_COMPILED_TEMPLATES || compiledCharacters + template.length > MAX_COMPILED_CHARACTERS) {
    compiledTemplates.clear();
    compiledCharacters = 0;
  }
  compiledTemplates.set(template, compiled);
  compiledCharacters += template.length;
  return compiled;
}

/** Replaces each {{variable}} with its input; objects and arrays become JSON. */
export function renderTemplate(template: string, inputs: Record<string, unknown>): RenderResult {
  const { literals, occurrences, variables: names, braceProblem } = compileTemplate(template);
  const variables = [...names];
  // Own properties only: {{constructor}} or {{__proto__}} must not find Object.prototype's.
  const inputFor = (name: string) => (Object.hasOwn(inputs, name) ? inputs[name] : undefined);
  const missing = variables.filter((name) => inputFor(name) === undefined || inputFor(name) === null);
  let text = literals[0]!;
  for (let i = 0; i < occurrences.length; i++) {
    const { name, whole } = occurrences[i]!;
    const value = inputFor(name);
    text += value === undefined || value === null ? whole : typeof value === 'string' ? value : JSON.stringify(value);
    text += literals[i + 1]!;
  }
  if (braceProblem) return { ok: false, error: braceProblem, variables, text };
  if (missing.length > 0) return { ok: false, error: `Missing value for ${missing.map((name) => `{{${name}}}`).join(', ')}`, variables, text };
  return { ok: true, text, variables };
}

/** The minimal shape declareTemplateVariables reads and writes (an IoSchema). */
interface DeclarableSchema {
  type: 'object';
  properties: Record<string, { type: string; description?: string; [key: string]: unknown }>;
  required?: string[];
  [key: string]: unknown;
}

/** The description an automatically declared input gets. */
export const AUTO_DECLARED_DESCRIPTION = 'Declared automatically from the template';

/**
 * The longest value, in characters, of an input declared automatically (issue 61, decision 0111):
 * about a page of text. Without it only the gateway's 64 KiB inputs limit bounds the variable, and
 * one call's worst-case model cost is ~30× a typical one's. A schema's own maxLength replaces it.
 */
export const AUTO_DECLARED_MAX_LENGTH = 2_000;

/**
 * Every {{variable}} of a template is a declared input (issue 25): a variable the schema does not
 * declare becomes a required text input. Saving, the builder's test, the curl example, Explore and
 * real calls all read the schema through this, so they agree. Returns the schema itself when nothing
 * is missing.
 */
export function declareTemplateVariables<S extends DeclarableSchema>(template: string, schema: S): S {
  const missing = detectVariables(template).filter((name) => !Object.hasOwn(schema.properties, name));
  if (missing.length === 0) return schema;
  const properties = { ...schema.properties };
  for (const name of missing) setOwn(properties, name, { type: 'string', description: AUTO_DECLARED_DESCRIPTION, maxLength: AUTO_DECLARED_MAX_LENGTH });
  const required = [...(schema.required ?? [])];
  for (const name of missing) if (!required.includes(name)) required.push(name);
  return { ...schema, properties, required };
}

/** The template's variables the schema does not declare. */
export function undeclaredVariables(template: string, schema: { properties: Record<string, unknown> }): string[] {
  return detectVariables(template).filter((name) => !Object.hasOwn(schema.properties, name));
}

/** The default schema's `query` input (defaults.ts), kept here to avoid an import cycle. */
const DEFAULT_QUERY_DESCRIPTION = 'The text to send to the model';

/**
 * A template changed without a new schema: inputs that only a template declared (automatically, or
 * the new app's default `query`) and that the new template no longer uses are dropped, so a call is
 * not asked for a variable the prompt never shows (a required `query` beside {{topic}} {{tone}}).
 * Inputs the creator declared stay.
 */
export function dropUnusedAutoDeclared<S extends DeclarableSchema>(template: string, schema: S): S {
  const used = new Set(detectVariables(template));
  const stale = Object.entries(schema.properties)
    .filter(
      ([name, property]) =>
        !used.has(name) && (property.description === AUTO_DECLARED_DESCRIPTION || (name === 'query' && property.description === DEFAULT_QUERY_DESCRIPTION)),
    )
    .map(([name]) => name);
  if (stale.length === 0) return schema;
  const properties = { ...schema.properties };
  for (const name of stale) delete properties[name];
  const required = schema.required?.filter((name) => !stale.includes(name));
  return { ...schema, properties, ...(required ? { required } : {}) };
}
