// Copy-ready call snippets for an app's public page, generated from its inputs. Each one works when
// pasted with a real key in place of YOUR_API_KEY: the sample values respect every field's type,
// options and bounds (catalog.test.ts runs the curl and fetch snippets against a listening server).
import { type CatalogField, type CatalogSnippets, openaiSdkExample, SNIPPET_API_KEY_PLACEHOLDER } from '@tollbooth/contract';

export interface SnippetApp {
  slug: string;
  mode: 'completion' | 'chat';
  fields: CatalogField[];
  /** The field a plain text fills (completion apps), or null. */
  textInput: string | null;
}

export const SAMPLE_TEXT = 'Hello! What can you do?';
export const SAMPLE_QUERY = 'Hello! What can you do?';
export const SAMPLE_END_USER = 'my-end-user';

function sampleString(field: CatalogField, text: string): string {
  let value = text;
  if (field.minLength !== undefined && value.length < field.minLength) value = value.padEnd(field.minLength, '.');
  if (field.maxLength !== undefined && value.length > field.maxLength) value = value.slice(0, field.maxLength);
  return value;
}

function sampleNumber(field: CatalogField): number {
  let value = field.minimum !== undefined ? Math.max(field.minimum, 1) : 1;
  if (field.maximum !== undefined && value > field.maximum) value = field.maximum;
  return field.control === 'integer' ? Math.ceil(value) : value;
}

/** A value the gateway accepts for the field; undefined when we cannot make one safely (free JSON). */
export function sampleValue(field: CatalogField, isTextInput: boolean): unknown {
  if (field.default !== undefined && field.default !== null && field.default !== '') return field.default;
  switch (field.control) {
    case 'select':
      return field.options?.[0];
    case 'boolean':
      return true;
    case 'number':
    case 'integer':
      return sampleNumber(field);
    case 'json':
      return undefined;
    default:
      return sampleString(field, isTextInput ? SAMPLE_TEXT : `example ${field.label.toLowerCase()}`);
  }
}

/** The inputs a snippet sends: the text input and every field with a safe sample value. */
export function sampleInputs(app: Pick<SnippetApp, 'fields' | 'textInput'>): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const field of app.fields) {
    const value = sampleValue(field, field.name === app.textInput);
    if (value !== undefined) inputs[field.name] = value;
  }
  return inputs;
}

export interface AppUrls {
  /** e.g. https://tollbooth.example/api/app/haiku */
  difyBaseUrl: string;
  call: string;
  openaiBaseUrl: string;
  openapi: string;
}

export function appUrls(publicUrl: string, slug: string, mode: 'completion' | 'chat'): AppUrls {
  const base = publicUrl.replace(/\/+$/, '');
  const difyBaseUrl = `${base}/api/app/${encodeURIComponent(slug)}`;
  return {
    difyBaseUrl,
    call: `${difyBaseUrl}/${mode === 'chat' ? 'chat-messages' : 'completion-messages'}`,
    openaiBaseUrl: `${base}/v1`,
    openapi: `${difyBaseUrl}/openapi.json`,
  };
}

export function requestBody(app: SnippetApp): Record<string, unknown> {
  const inputs = sampleInputs(app);
  return app.mode === 'chat'
    ? { inputs, query: SAMPLE_QUERY, response_mode: 'blocking', user: SAMPLE_END_USER }
    : { inputs, response_mode: 'blocking', user: SAMPLE_END_USER };
}

const indent = (text: string, spaces: number) => text.replace(/\n/g, `\n${' '.repeat(spaces)}`);
/** A POSIX shell single-quoted word. */
const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const jsString = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;

/** JSON as a Python literal (True, False, None). */
export function pythonLiteral(value: unknown, depth = 0): string {
  const pad = '    '.repeat(depth + 1);
  const end = '    '.repeat(depth);
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number' || typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => `${pad}${pythonLiteral(item, depth + 1)},`).join('\n')}\n${end}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([key, item]) => `${pad}${JSON.stringify(key)}: ${pythonLiteral(item, depth + 1)},`).join('\n')}\n${end}}`;
}

/** JSON as a JavaScript object literal (JSON is one; keys stay quoted so any name works). */
const jsLiteral = (value: unknown, spaces: number) => indent(JSON.stringify(value, null, 2), spaces);

export function buildSnippets(publicUrl: string, app: SnippetApp): CatalogSnippets {
  const urls = appUrls(publicUrl, app.slug, app.mode);
  const body = requestBody(app);
  const inputs = body.inputs as Record<string, unknown>;
  const key = SNIPPET_API_KEY_PLACEHOLDER;

  const curl = [
    `curl -X POST ${shellQuote(urls.call)} \\`,
    `  -H ${shellQuote(`Authorization: Bearer ${key}`)} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d ${shellQuote(JSON.stringify(body, null, 2))}`,
  ].join('\n');

  const javascript = [
    `const response = await fetch(${jsString(urls.call)}, {`,
    `  method: 'POST',`,
    `  headers: { Authorization: 'Bearer ${key}', 'Content-Type': 'application/json' },`,
    `  body: JSON.stringify(${jsLiteral(body, 2)}),`,
    `});`,
    `const result = await response.json();`,
    `if (!response.ok) throw new Error(\`\${result.code}: \${result.message}\`);`,
    `console.log(result.answer);`,
  ].join('\n');

  const python = [
    'import requests',
    '',
    'response = requests.post(',
    `    ${JSON.stringify(urls.call)},`,
    `    headers={"Authorization": "Bearer ${key}"},`,
    `    json=${pythonLiteral(body, 1)},`,
    '    timeout=120,',
    ')',
    'response.raise_for_status()',
    'print(response.json()["answer"])',
  ].join('\n');

  const difySdk =
    app.mode === 'chat'
      ? [
          `import { ChatClient } from 'dify-client';`,
          '',
          `const client = new ChatClient('${key}', ${jsString(urls.difyBaseUrl)});`,
          `const response = await client.createChatMessage(${jsLiteral(inputs, 0)}, ${jsString(SAMPLE_QUERY)}, ${jsString(SAMPLE_END_USER)});`,
          'console.log(response.data.answer);',
        ].join('\n')
      : [
          `import { CompletionClient } from 'dify-client';`,
          '',
          `const client = new CompletionClient('${key}', ${jsString(urls.difyBaseUrl)});`,
          `const response = await client.createCompletionMessage(${jsLiteral(inputs, 0)}, ${jsString(SAMPLE_END_USER)});`,
          'console.log(response.data.answer);',
        ].join('\n');

  // Chat apps take the last message as the query; a completion app takes it into its text input.
  // The other inputs go as metadata (strings, typed in every SDK) or, for JSON, as inputs (decision 0112).
  const userText = app.mode === 'chat' ? SAMPLE_QUERY : typeof inputs[app.textInput ?? ''] === 'string' ? (inputs[app.textInput!] as string) : SAMPLE_TEXT;
  const otherInputs = Object.fromEntries(Object.entries(inputs).filter(([name]) => app.mode === 'chat' || name !== app.textInput));
  const openaiSdk = openaiSdkExample({ slug: app.slug, mode: app.mode, userText, otherInputs }, key, urls.openaiBaseUrl);

  return { curl, javascript, python, dify_sdk: difySdk, openai_sdk: openaiSdk };
}
