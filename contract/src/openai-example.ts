// How an OpenAI client fills an app's variables (issue 61, decision 0112), as a copyable example:
// the last user message fills the app's main text input (chat apps: the query); every other input
// goes in `metadata` (OpenAI's own field of strings, typed in every SDK: numbers and booleans as
// their text), or, for JSON inputs, in the `inputs` body field (an extra field of the params in
// Node; `extra_body` in Python). Explore's snippet (server/src/catalog/snippets.ts) and the
// console's example (web) both come from here.

const jsString = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
const jsKey = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : jsString(name));

export interface OpenAIExampleApp {
  slug: string;
  mode: 'completion' | 'chat';
  /** The text the last user message carries. */
  userText: string;
  /** Sample values of the app's other inputs (the text input left out), by name. */
  otherInputs: Record<string, unknown>;
}

/** The values metadata can carry (its values are strings): scalars; the rest go in `inputs`. */
export function splitForMetadata(inputs: Record<string, unknown>): { metadata: Record<string, string>; inputs: Record<string, unknown> } {
  const metadata: Record<string, string> = {};
  const rest: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(inputs)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') metadata[name] = String(value);
    else rest[name] = value;
  }
  return { metadata, inputs: rest };
}

/** A Node ES module calling the app with the unmodified `openai` package. */
export function openaiSdkExample(app: OpenAIExampleApp, apiKey: string, baseUrl: string): string {
  const { metadata, inputs } = splitForMetadata(app.otherInputs);
  const object = (value: Record<string, unknown>) =>
    `{ ${Object.entries(value)
      .map(([name, item]) => `${jsKey(name)}: ${typeof item === 'string' ? jsString(item) : JSON.stringify(item)}`)
      .join(', ')} }`;
  const hasMetadata = Object.keys(metadata).length > 0;
  const hasInputs = Object.keys(inputs).length > 0;
  return [
    `import OpenAI from 'openai';`,
    '',
    `const client = new OpenAI({ apiKey: '${apiKey}', baseURL: ${jsString(baseUrl)} });`,
    ...(hasInputs
      ? [`// JSON inputs go in "inputs", an extra field the SDK sends as it is (Python: extra_body={"inputs": {...}}).`, `const params = {`]
      : ['const completion = await client.chat.completions.create({']),
    `  model: ${jsString(app.slug)},`,
    `  // ${app.mode === 'chat' ? "The last user message is the app's query." : "The last user message fills the app's main text input."}`,
    `  messages: [{ role: 'user', content: ${jsString(app.userText)} }],`,
    ...(hasMetadata ? ["  // The app's other inputs, as text: numbers and booleans are turned back into their type.", `  metadata: ${object(metadata)},`] : []),
    ...(hasInputs ? [`  inputs: ${object(inputs)},`, '};', 'const completion = await client.chat.completions.create(params);'] : ['});']),
    'console.log(completion.choices[0].message.content);',
  ].join('\n');
}
