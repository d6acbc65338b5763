import { useId, useState } from 'react';

/**
 * Form state shared by the create and edit forms: values, per-field errors that clear as soon as
 * their field is corrected, ids for labels, and focus on the first invalid field after a submit.
 */
export function useAppForm<Values extends object>(initial: () => Values, fieldOrder: readonly (keyof Values)[]) {
  const id = useId();
  const fieldId = (name: keyof Values) => `${id}-${String(name)}`;
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<Partial<Record<keyof Values, string>>>({});

  const set = <K extends keyof Values>(name: K, value: Values[K]) => {
    setValues((current) => ({ ...current, [name]: value }));
    // A corrected field loses its message straight away; the others wait for the next submit.
    setErrors((current) => {
      if (!current[name]) return current;
      const { [name]: _removed, ...rest } = current;
      return rest as Partial<Record<keyof Values, string>>;
    });
  };

  /** Shows the errors found on submit; false (with focus on the first invalid field) when there are any. */
  const accept = (found: Partial<Record<keyof Values, string>>) => {
    setErrors(found);
    const first = fieldOrder.find((name) => found[name]);
    if (first === undefined) return true;
    document.getElementById(fieldId(first))?.focus();
    return false;
  };

  return { id, fieldId, values, errors, set, accept };
}
