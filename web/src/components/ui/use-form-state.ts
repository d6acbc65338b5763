// The two things every form section whose state its page holds needs: an id per field (for labels,
// hints and focusing the first invalid one) and a setter of one value that works on the current
// values, so quick successive edits never work on a stale copy.
import { type Dispatch, type SetStateAction, useId } from 'react';

export function useFormSection<Values>(onChange: Dispatch<SetStateAction<Values>>) {
  const id = useId();
  const fieldId = (name: string) => `${id}-${name}`;
  const set = <K extends keyof Values>(name: K, value: Values[K]) => onChange((current) => ({ ...current, [name]: value }));
  return { id, fieldId, set };
}
