// Test inputs are typed as text; the server renders objects and arrays as JSON and everything else
// as text, so each value is converted to the type its input field declares before it is sent.
import type { IoSchema } from '@tollbooth/contract';

/** One typed test value for a variable, following the declared type when there is one. */
export function convertTestValue(text: string, type: string | undefined): unknown {
  switch (type) {
    case 'number':
    case 'integer': {
      const value = Number(text);
      return text.trim() !== '' && Number.isFinite(value) ? value : text;
    }
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'array':
    case 'object':
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    default:
      return text;
  }
}

/** The test_inputs body: only variables the user gave a value. */
export function buildTestInputs(texts: Record<string, string>, variables: readonly string[], schema: IoSchema): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const name of variables) {
    const text = texts[name];
    if (text === undefined || text === '') continue;
    inputs[name] = convertTestValue(text, schema.properties[name]?.type);
  }
  return inputs;
}
