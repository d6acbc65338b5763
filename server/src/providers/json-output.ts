// Asking for JSON by instruction, for providers (or schemas) without native structured output.
import type { ChatMessage } from './types.ts';

export function jsonSchemaInstruction(schema: object): string {
  return [
    'Answer with one JSON value that is valid against the JSON Schema below, and nothing else:',
    'no explanation, no Markdown, no code fences.',
    '',
    JSON.stringify(schema),
  ].join('\n');
}

/** The system messages' text joined, with the JSON instruction appended when a schema is asked for. */
export function systemPrompt(messages: readonly ChatMessage[], jsonSchema: object | undefined, instructJson: boolean): string {
  const parts = messages.filter((message) => message.role === 'system').map((message) => message.content);
  if (jsonSchema && instructJson) parts.push(jsonSchemaInstruction(jsonSchema));
  return parts.filter((part) => part !== '').join('\n\n');
}
