import type { CatalogField } from '@tollbooth/contract';
import { HeadCells } from '@/components/ui/head-cells';

const TYPE_NAMES: Record<CatalogField['control'], string> = {
  text: 'string',
  paragraph: 'string',
  select: 'string (one of)',
  number: 'number',
  integer: 'integer',
  boolean: 'boolean',
  json: 'JSON',
};

/** What a field accepts beyond its type: options, bounds, default. */
export function fieldConstraints(field: CatalogField): string[] {
  const notes: string[] = [];
  if (field.options?.length) notes.push(`one of ${field.options.map((option) => JSON.stringify(option)).join(', ')}`);
  if (field.minLength !== undefined) notes.push(`at least ${field.minLength} characters`);
  if (field.maxLength !== undefined) notes.push(`at most ${field.maxLength} characters`);
  if (field.minimum !== undefined) notes.push(`minimum ${field.minimum}`);
  if (field.maximum !== undefined) notes.push(`maximum ${field.maximum}`);
  if (field.default !== undefined) notes.push(`default ${JSON.stringify(field.default)}`);
  return notes;
}

export function InputsTable({ fields, textInput, mode }: { fields: CatalogField[]; textInput: string | null; mode: 'completion' | 'chat' }) {
  return (
    <div className="overflow-x-auto">
      <table className="min-w-full divide-y divide-gray-200 text-sm">
        <thead>
          <tr className="text-left text-xs font-semibold tracking-wide text-gray-500 uppercase">
            <HeadCells labels={['Input', 'Type', 'Required', 'Description']} y="py-2" gap="pr-4" />
          </tr>
        </thead>
        <tbody className="divide-y divide-gray-100">
          {mode === 'chat' ? (
            <tr>
              <td className="py-2 pr-4 align-top">
                <code className="font-mono text-indigo-700">query</code>
                <span className="block text-xs text-gray-500">(body field)</span>
              </td>
              <td className="py-2 pr-4 align-top text-gray-700">string</td>
              <td className="py-2 pr-4 align-top text-gray-700">yes</td>
              <td className="py-2 align-top text-gray-700">The chat message. Send conversation_id from an answer to continue the conversation.</td>
            </tr>
          ) : null}
          {fields.map((field) => (
            <tr key={field.name}>
              <td className="py-2 pr-4 align-top">
                <code className="font-mono text-indigo-700">inputs.{field.name}</code>
                <span className="block text-xs text-gray-500">{field.label}</span>
              </td>
              <td className="py-2 pr-4 align-top text-gray-700">{TYPE_NAMES[field.control]}</td>
              <td className="py-2 pr-4 align-top text-gray-700">{field.required ? 'yes' : 'no'}</td>
              <td className="py-2 align-top text-gray-700">
                {field.description}
                {field.name === textInput ? <span className="block text-xs text-gray-500">The main text of the call.</span> : null}
                {fieldConstraints(field).length ? <span className="block text-xs text-gray-500">{fieldConstraints(field).join('; ')}</span> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {fields.length === 0 && mode !== 'chat' ? <p className="mt-2 text-sm text-gray-500">This app takes no inputs.</p> : null}
    </div>
  );
}
