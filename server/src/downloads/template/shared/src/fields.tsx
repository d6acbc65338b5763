// The app's input fields as form controls, generated from its input schema: labels, hints,
// required marks, defaults, selects for enums, numbers, checkboxes and textareas for long text.
import type { ReactNode } from 'react';
import type { AppField } from './app-description';

/** Form state: text for every control but checkboxes. */
export type FieldValues = Record<string, string | boolean>;

export function initialValues(fields: AppField[]): FieldValues {
  const values: FieldValues = {};
  for (const field of fields) {
    if (field.control === 'boolean') values[field.name] = field.default === true;
    else if (field.default === undefined) values[field.name] = '';
    else values[field.name] = field.control === 'json' ? JSON.stringify(field.default, null, 2) : String(field.default);
  }
  return values;
}

/** The values as the endpoint's `inputs`: typed, empty optional fields left out. Throws with a message naming the field. */
export function toInputs(fields: AppField[], values: FieldValues): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field.name];
    if (field.control === 'boolean') {
      inputs[field.name] = value === true;
      continue;
    }
    const text = typeof value === 'string' ? value : '';
    if (text.trim() === '') {
      if (field.required) throw new Error(`${field.label} is required.`);
      continue;
    }
    switch (field.control) {
      case 'number':
      case 'integer': {
        const number = Number(text);
        if (!Number.isFinite(number) || (field.control === 'integer' && !Number.isInteger(number))) {
          throw new Error(`${field.label} must be ${field.control === 'integer' ? 'a whole number' : 'a number'}.`);
        }
        inputs[field.name] = number;
        break;
      }
      case 'select':
        inputs[field.name] = field.options?.find((option) => String(option) === text) ?? text;
        break;
      case 'json':
        try {
          inputs[field.name] = JSON.parse(text);
        } catch {
          throw new Error(`${field.label} must be valid JSON.`);
        }
        break;
      default:
        inputs[field.name] = text;
    }
  }
  return inputs;
}

interface FieldInputProps {
  field: AppField;
  value: string | boolean;
  onChange: (value: string | boolean) => void;
  disabled?: boolean;
}

export function FieldInput({ field, value, onChange, disabled }: FieldInputProps) {
  const id = `field-${field.name}`;
  const hintId = field.description ? `${id}-hint` : undefined;
  const common = { id, name: field.name, disabled, 'aria-describedby': hintId };
  const hint = field.description ? (
    <p className="hint" id={hintId}>
      {field.description}
    </p>
  ) : null;

  if (field.control === 'boolean') {
    return (
      <div className="field field-checkbox">
        <input {...common} type="checkbox" checked={value === true} onChange={(event) => onChange(event.target.checked)} />
        <label htmlFor={id}>{field.label}</label>
        {hint}
      </div>
    );
  }

  const text = typeof value === 'string' ? value : '';
  let control: ReactNode;
  switch (field.control) {
    case 'select':
      control = (
        <select {...common} required={field.required} value={text} onChange={(event) => onChange(event.target.value)}>
          {!field.required || text === '' ? <option value="">{field.required ? 'Choose…' : '(none)'}</option> : null}
          {(field.options ?? []).map((option) => (
            <option key={String(option)} value={String(option)}>
              {String(option)}
            </option>
          ))}
        </select>
      );
      break;
    case 'number':
    case 'integer':
      control = (
        <input
          {...common}
          type="number"
          inputMode={field.control === 'integer' ? 'numeric' : 'decimal'}
          step={field.control === 'integer' ? 1 : 'any'}
          min={field.minimum}
          max={field.maximum}
          required={field.required}
          value={text}
          onChange={(event) => onChange(event.target.value)}
        />
      );
      break;
    case 'text':
      control = (
        <input
          {...common}
          type="text"
          required={field.required}
          minLength={field.minLength}
          maxLength={field.maxLength}
          value={text}
          onChange={(event) => onChange(event.target.value)}
        />
      );
      break;
    default:
      control = (
        <textarea
          {...common}
          rows={field.control === 'json' ? 4 : 5}
          required={field.required}
          minLength={field.minLength}
          maxLength={field.maxLength}
          spellCheck={field.control !== 'json'}
          placeholder={field.control === 'json' ? 'JSON' : undefined}
          value={text}
          onChange={(event) => onChange(event.target.value)}
        />
      );
  }
  return (
    <div className="field">
      <label htmlFor={id}>
        {field.label}
        {field.required ? (
          <span className="required" aria-hidden="true">
            {' '}
            *
          </span>
        ) : null}
      </label>
      {control}
      {hint}
    </div>
  );
}

export function Fields({
  fields,
  values,
  onChange,
  disabled,
}: {
  fields: AppField[];
  values: FieldValues;
  onChange: (values: FieldValues) => void;
  disabled?: boolean;
}) {
  return (
    <>
      {fields.map((field) => (
        <FieldInput
          key={field.name}
          field={field}
          value={values[field.name] ?? ''}
          disabled={disabled}
          onChange={(value) => onChange({ ...values, [field.name]: value })}
        />
      ))}
    </>
  );
}
