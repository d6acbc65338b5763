// The schema field builder (spec sections 3 and 5): one group of inputs per field, with the options
// its type offers. The parent keeps the fields; lib/schema-fields.utils turns them into a schema.
import { useId } from 'react';
import { Options } from '@/components/ui/options';
import { inputField, secondaryButton } from '@/components/ui/styles';
import {
  emptyField,
  FIELD_NAME_HINT,
  FIELD_NAME_PATTERN,
  FIELD_TYPES,
  type FieldType,
  ITEM_TYPES,
  type ItemType,
  offersAllowedValues,
  offersLength,
  offersRange,
  type SchemaField,
} from '../lib/schema-fields.utils';

interface SchemaFieldBuilderProps {
  /** Names each group, e.g. "Input field" → "Input field 1". */
  fieldLabel: string;
  addLabel: string;
  fields: readonly SchemaField[];
  onChange: (fields: SchemaField[]) => void;
}

const smallLabel = 'block text-sm font-medium text-gray-700';

function FieldEditor({
  field,
  legend,
  onChange,
  onRemove,
}: {
  field: SchemaField;
  legend: string;
  onChange: (field: SchemaField) => void;
  onRemove: () => void;
}) {
  const id = useId();
  const set = <K extends keyof SchemaField>(name: K, value: SchemaField[K]) => onChange({ ...field, [name]: value });
  const nameInvalid = field.name !== '' && !FIELD_NAME_PATTERN.test(field.name.trim());

  const text = (name: 'minLength' | 'maxLength' | 'pattern' | 'minimum' | 'maximum' | 'itemsDescription', label: string, type: 'text' | 'number' = 'text') => (
    <div>
      <label htmlFor={`${id}-${name}`} className={smallLabel}>
        {label}
      </label>
      <input
        id={`${id}-${name}`}
        type={type}
        step={type === 'number' ? 'any' : undefined}
        value={field[name]}
        onChange={(event) => set(name, event.target.value)}
        className={`${inputField} mt-1`}
      />
    </div>
  );

  return (
    <fieldset className="rounded-lg p-4 ring-1 ring-gray-200">
      <legend className="px-1 text-sm font-semibold text-gray-900">{legend}</legend>
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        <div>
          <label htmlFor={`${id}-name`} className={smallLabel}>
            Name
          </label>
          <input
            id={`${id}-name`}
            type="text"
            autoComplete="off"
            value={field.name}
            onChange={(event) => set('name', event.target.value)}
            aria-invalid={nameInvalid || undefined}
            aria-describedby={nameInvalid ? `${id}-name-hint` : undefined}
            className={`${inputField} mt-1 font-mono`}
          />
          {nameInvalid ? (
            <p id={`${id}-name-hint`} className="mt-1 text-sm text-red-600">
              {FIELD_NAME_HINT}
            </p>
          ) : null}
        </div>
        <div>
          <label htmlFor={`${id}-type`} className={smallLabel}>
            Type
          </label>
          <select
            id={`${id}-type`}
            value={field.type}
            onChange={(event) => onChange({ ...field, type: event.target.value as FieldType, defaultValue: '' })}
            className={`${inputField} mt-1`}
          >
            <Options options={FIELD_TYPES} />
          </select>
        </div>
        <div className="sm:col-span-2">
          <label htmlFor={`${id}-description`} className={smallLabel}>
            Description
          </label>
          <input
            id={`${id}-description`}
            type="text"
            value={field.description}
            onChange={(event) => set('description', event.target.value)}
            className={`${inputField} mt-1`}
          />
        </div>
        <div className="flex items-center gap-2">
          <input
            id={`${id}-required`}
            type="checkbox"
            checked={field.required}
            onChange={(event) => set('required', event.target.checked)}
            className="h-4 w-4 rounded border-gray-300 text-indigo-600 focus:ring-indigo-600"
          />
          <label htmlFor={`${id}-required`} className="text-sm text-gray-700">
            Required
          </label>
        </div>
        <div>
          <label htmlFor={`${id}-default`} className={smallLabel}>
            {field.type === 'array' || field.type === 'object' ? 'Default (JSON)' : 'Default'}
          </label>
          {field.type === 'boolean' ? (
            <select
              id={`${id}-default`}
              value={field.defaultValue}
              onChange={(event) => set('defaultValue', event.target.value)}
              className={`${inputField} mt-1`}
            >
              <option value="">None</option>
              <option value="true">true</option>
              <option value="false">false</option>
            </select>
          ) : (
            <input
              id={`${id}-default`}
              type={field.type === 'number' || field.type === 'integer' ? 'number' : 'text'}
              step={field.type === 'integer' ? 1 : 'any'}
              value={field.defaultValue}
              onChange={(event) => set('defaultValue', event.target.value)}
              className={`${inputField} mt-1`}
            />
          )}
        </div>
        {offersAllowedValues(field.type) ? (
          <div className="sm:col-span-2">
            <label htmlFor={`${id}-allowed`} className={smallLabel}>
              Allowed values
            </label>
            <textarea
              id={`${id}-allowed`}
              rows={3}
              value={field.allowedValues}
              onChange={(event) => set('allowedValues', event.target.value)}
              aria-describedby={`${id}-allowed-hint`}
              className={`${inputField} mt-1 font-mono`}
            />
            <p id={`${id}-allowed-hint`} className="mt-1 text-sm text-gray-500">
              One per line; leave empty to allow any value.
            </p>
          </div>
        ) : null}
        {offersLength(field.type) ? (
          <>
            {text('minLength', 'Min length', 'number')}
            {text('maxLength', 'Max length', 'number')}
            <div className="sm:col-span-2">{text('pattern', 'Regex pattern')}</div>
          </>
        ) : null}
        {offersRange(field.type) ? (
          <>
            {text('minimum', 'Minimum', 'number')}
            {text('maximum', 'Maximum', 'number')}
          </>
        ) : null}
        {field.type === 'array' ? (
          <>
            <div>
              <label htmlFor={`${id}-items-type`} className={smallLabel}>
                Items type
              </label>
              <select
                id={`${id}-items-type`}
                value={field.itemsType}
                onChange={(event) => set('itemsType', event.target.value as ItemType)}
                className={`${inputField} mt-1`}
              >
                <Options options={ITEM_TYPES} />
              </select>
            </div>
            {text('itemsDescription', 'Items description')}
          </>
        ) : null}
      </div>
      <div className="mt-4 flex justify-end">
        <button type="button" onClick={onRemove} className="text-sm font-medium text-red-600 hover:text-red-500">
          Remove field
        </button>
      </div>
    </fieldset>
  );
}

export function SchemaFieldBuilder({ fieldLabel, addLabel, fields, onChange }: SchemaFieldBuilderProps) {
  return (
    <div className="space-y-4">
      {fields.map((field, index) => (
        <FieldEditor
          key={field.key}
          field={field}
          legend={`${fieldLabel} ${index + 1}`}
          onChange={(changed) => onChange(fields.map((candidate) => (candidate.key === field.key ? changed : candidate)))}
          onRemove={() => onChange(fields.filter((candidate) => candidate.key !== field.key))}
        />
      ))}
      <button type="button" className={secondaryButton} onClick={() => onChange([...fields, emptyField()])}>
        {addLabel}
      </button>
    </div>
  );
}
