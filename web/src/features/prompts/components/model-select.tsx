// The model a prompt app calls, beside its key source: the models this server offers, and the app's
// own model even when it is no longer offered (lib/model-options.ts).
import { FormField } from '@/components/ui/form-field';
import { Options } from '@/components/ui/options';
import { inputField } from '@/components/ui/styles';
import { type ModelName, useModelOptions } from '../lib/model-options';

export function ModelSelect({ id, value, onChange }: { id: string; value: ModelName; onChange: (value: ModelName) => void }) {
  const modelOptions = useModelOptions(value);
  return (
    <FormField id={id} label="Model">
      <select id={id} value={value} onChange={(event) => onChange(event.target.value as ModelName)} className={inputField}>
        <Options options={modelOptions} />
      </select>
    </FormField>
  );
}
