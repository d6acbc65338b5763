import type { ReactNode } from 'react';
import { inputField } from './styles';

interface FormFieldProps {
  id: string;
  label: string;
  error?: string;
  /** Extra help under the input; its element id is `${id}-hint`. */
  hint?: ReactNode;
  children: ReactNode;
  className?: string;
}

/** A label, the input passed as children, then hint and error texts the input refers to with aria-describedby. */
export function FormField({ id, label, error, hint, children, className }: FormFieldProps) {
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-medium text-gray-700">
        {label}
      </label>
      <div className="mt-1">{children}</div>
      {hint ? (
        <div id={`${id}-hint`} className="mt-1 text-sm text-gray-500">
          {hint}
        </div>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="mt-1 text-sm text-red-600">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The aria attributes an input inside FormField needs. */
export function describedBy(id: string, { error, hint }: { error?: string; hint?: boolean }) {
  const ids = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean);
  return {
    'aria-invalid': error ? true : undefined,
    'aria-describedby': ids.length > 0 ? ids.join(' ') : undefined,
  } as const;
}

/** A FormField around a number input: the settings forms' counts, limits and model parameters. */
export function NumberField({
  id,
  label,
  hint,
  value,
  onChange,
  min,
  max,
  step,
  inputMode,
}: {
  id: string;
  label: string;
  hint?: string;
  value: string | number;
  onChange: (value: string) => void;
  min: number;
  max: number;
  step: number;
  inputMode?: 'numeric';
}) {
  return (
    <FormField id={id} label={label} hint={hint}>
      <input
        id={id}
        type="number"
        min={min}
        max={max}
        step={step}
        inputMode={inputMode}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        className={inputField}
        {...describedBy(id, { hint: Boolean(hint) })}
      />
    </FormField>
  );
}

const CHECKBOX = 'mt-0.5 h-4 w-4 rounded border-gray-300 text-indigo-600';

/** A checkbox with its label and a hint under it that the box refers to (its element id is `${id}-hint`). */
export function CheckboxField({
  id,
  label,
  hint,
  checked,
  onChange,
  className,
}: {
  id: string;
  label: string;
  hint: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  className: string;
}) {
  const hintId = `${id}-hint`;
  return (
    <div className={className}>
      <input id={id} type="checkbox" checked={checked} onChange={(event) => onChange(event.target.checked)} className={CHECKBOX} aria-describedby={hintId} />
      <div className="text-sm">
        <label htmlFor={id} className="font-medium text-gray-700">
          {label}
        </label>
        <p id={hintId} className="text-gray-500">
          {hint}
        </p>
      </div>
    </div>
  );
}
