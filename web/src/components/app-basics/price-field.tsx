import { describedBy, FormField } from '@/components/ui/form-field';
import { inputField } from '@/components/ui/styles';
import { formatCents } from '@/lib/format';
import { dollarsToCents, parsePriceCents } from '@/lib/price';

/** The unit a price field is typed in; money itself is always integer cents. */
export type PriceUnit = 'cents' | 'dollars';

interface PriceFieldProps {
  id: string;
  label: string;
  unit: PriceUnit;
  /** The field's text, in `unit`. */
  value: string;
  onChange: (value: string) => void;
  error?: string;
  /** Smallest accepted value, in `unit`. */
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

/** The price of an application per call, typed in an explicit unit, with the "$x.xx per call" line. */
export function PriceField({
  id,
  label,
  unit,
  value,
  onChange,
  error,
  min,
  required,
  name,
  clampDisplay,
  inputClassName,
  outputTestId,
  note,
}: PriceFieldProps) {
  const cents = unit === 'dollars' ? dollarsToCents(value) : parsePriceCents(value);
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
        step={unit === 'dollars' ? 0.01 : 1}
        inputMode={unit === 'dollars' ? 'decimal' : 'numeric'}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        className={inputClassName ?? inputField}
        {...describedBy(id, { error, hint: true })}
      />
    </FormField>
  );
}
