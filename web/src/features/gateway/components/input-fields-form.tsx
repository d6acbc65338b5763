import { useId } from 'react';
import { Options } from '@/components/ui/options';
import { inputField } from '@/components/ui/styles';
import type { InputField } from '../lib/input-fields';

interface InputFieldsFormProps {
  fields: InputField[];
  /** The input the Input Text fills, named in the note. */
  textInput: string | null;
  values: Record<string, string>;
  onChange: (name: string, value: string) => void;
}

function FieldControl({ field, id, value, onChange }: { field: InputField; id: string; value: string; onChange: (value: string) => void }) {
  const common = { id, name: field.name, value, required: field.required, className: inputField };
  if (field.options || field.type === 'boolean') {
    const options = field.options ?? ['true', 'false'];
    return (
      <select {...common} onChange={(event) => onChange(event.target.value)}>
        <option value="">{field.required ? 'Select a value...' : '(not set)'}</option>
        <Options options={options} />
      </select>
    );
  }
  if (field.type === 'array' || field.type === 'object') {
    return (
      <textarea
        {...common}
        rows={3}
        placeholder={field.type === 'array' ? '["a", "b"]' : '{"key": "value"}'}
        onChange={(event) => onChange(event.target.value)}
      />
    );
  }
  const numeric = field.type === 'number' || field.type === 'integer';
  return (
    <input
      {...common}
      type={numeric ? 'number' : 'text'}
      step={field.type === 'integer' ? 1 : numeric ? 'any' : undefined}
      autoComplete="off"
      onChange={(event) => onChange(event.target.value)}
    />
  );
}

/** One labelled input per field of the app's input schema besides `query`; sent with both tests. */
export function InputFieldsForm({ fields, textInput, values, onChange }: InputFieldsFormProps) {
  const id = useId();
  if (fields.length === 0) return null;
  return (
    <section aria-labelledby={`${id}-title`} className="rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200">
      <h2 id={`${id}-title`} className="text-lg font-semibold text-gray-900">
        App Inputs
      </h2>
      <p className="mt-1 text-sm text-gray-500">
        The fields of this app's inputs, sent with both tests.{' '}
        {textInput ? `Input Text fills ${textInput}; Chat Query is the chat message.` : 'Chat Query is the chat message.'}
      </p>
      <div className="mt-4 grid grid-cols-1 gap-4 sm:grid-cols-2">
        {fields.map((field) => {
          const fieldId = `${id}-${field.name}`;
          return (
            <div key={field.name}>
              <label htmlFor={fieldId} className="block text-sm font-medium text-gray-700">
                {field.name}
                {field.required ? <span className="text-red-600"> *</span> : null}
              </label>
              <div className="mt-1">
                <FieldControl field={field} id={fieldId} value={values[field.name] ?? ''} onChange={(value) => onChange(field.name, value)} />
              </div>
              {field.description ? <p className="mt-1 text-xs text-gray-500">{field.description}</p> : null}
            </div>
          );
        })}
      </div>
    </section>
  );
}
