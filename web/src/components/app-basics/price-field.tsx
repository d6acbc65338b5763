import { describedBy, FormField } from '@/components/ui/form-field';
import { inputField } from '@/components/ui/styles';
import { formatCents } from '@/lib/format';
import { dollarsToCents } from '@/lib/price';

interface PriceFieldProps {
  id: string;
  label: string;
  /** The field's text, in dollars (every price field is, issue 61). */
  value: string;
  onChange: (value: string) => void;
  error?: string;
  /** Smallest accepted value, in dollars. */
  min: number;
  required?: boolean;
  name?: string;
  /** Shows a price below zero as $0.00 in the "per call" line. */
  clampDisplay?: boolean;
  inputClassName?: string;
  outputTestId?: string;
  /** A sentence after the price, e.g. how a change reaches callers. */
  note?: string;
}

/** The price of an application per call, typed in dollars, with the "$x.xx per call" line. */
export function PriceField({ id, label, value, onChange, error, min, required, name, clampDisplay, inputClassName, outputTestId, note }: PriceFieldProps) {
  const cents = dollarsToCents(value);
  return (
    <FormField
      id={id}
      label={label}
      error={error}
      hint={
        <>
          <output aria-live="polite" data-testid={outputTestId}>
            {`${formatCents(clampDisplay ? Math.max(0, cents) : cents)} per call`}
          </output>
          {note ? ` · ${note}` : null}
        </>
      }
    >
      <input
        id={id}
        name={name}
        type="number"
        required={required}
        min={min}
        step={0.01}
        inputMode="decimal"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        className={inputClassName ?? inputField}
        {...describedBy(id, { error, hint: true })}
      />
    </FormField>
  );
}
