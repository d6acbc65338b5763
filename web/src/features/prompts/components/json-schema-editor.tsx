import type { IoSchema } from '@tollbooth/contract';
import { useState } from 'react';
import { inputField } from '@/components/ui/styles';
import { parseSchemaText } from '../lib/prompt-detail.utils';

interface JsonSchemaEditorProps {
  id: string;
  label: string;
  schema: IoSchema | null;
  /** Called only with text that parses as a JSON object (or null when nullable). */
  onChange: (schema: IoSchema | null) => void;
  nullable?: boolean;
  hint?: string;
}

/** A JSON text area for a schema: invalid JSON is kept as typed but not applied. */
export function JsonSchemaEditor({ id, label, schema, onChange, nullable = false, hint }: JsonSchemaEditorProps) {
  const [text, setText] = useState(() => JSON.stringify(schema, null, 2));
  const [problem, setProblem] = useState<string | null>(null);

  function handleChange(next: string) {
    setText(next);
    const parsed = parseSchemaText(next, { nullable });
    if (parsed.ok) {
      setProblem(null);
      onChange(parsed.schema);
    } else {
      setProblem(parsed.hint);
    }
  }

  const describedBy = [hint ? `${id}-hint` : null, problem ? `${id}-problem` : null].filter(Boolean).join(' ') || undefined;

  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-gray-700">
        {label}
      </label>
      <textarea
        id={id}
        rows={12}
        spellCheck={false}
        value={text}
        onChange={(event) => handleChange(event.target.value)}
        aria-invalid={problem ? true : undefined}
        aria-describedby={describedBy}
        className={`${inputField} mt-1 font-mono text-xs`}
      />
      {hint ? (
        <p id={`${id}-hint`} className="mt-1 text-sm text-gray-500">
          {hint}
        </p>
      ) : null}
      {problem ? (
        <p id={`${id}-problem`} className="mt-1 text-xs text-amber-700">
          {problem}
        </p>
      ) : null}
    </div>
  );
}
