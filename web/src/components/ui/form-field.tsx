import type { ReactNode } from 'react';

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
