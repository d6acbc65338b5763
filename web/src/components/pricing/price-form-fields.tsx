// The price form chooser (issue 60): per call, per token or cost plus, then the optional minimum and
// most per call, every amount typed in dollars. The create and edit forms hold its values among
// their own (useAppForm) and render it where the whole-cent price field was.
import { type AppType, dollarsToMicros, formatMicros, rateCardLines, rateCardOf } from '@tollbooth/contract';
import { describedBy, FormField } from '@/components/ui/form-field';
import { inputField } from '@/components/ui/styles';
import {
  COST_PLUS_WORKFLOW_REASON,
  PRICE_FORM_LABELS,
  type PriceFormKey,
  type PriceFormName,
  type PriceFormValues,
  priceBodyOf,
  validatePriceForm,
  WORKFLOW_MAXIMUM_REASON,
} from './price-form.utils';

export interface PriceFormState<Values extends PriceFormValues> {
  values: Values;
  set: <K extends keyof Values>(name: K, value: Values[K]) => void;
  fieldId: (name: keyof Values) => string;
  errors: Partial<Record<keyof Values, string>>;
}

const FORM_HINTS: Record<PriceFormName, string> = {
  per_call: 'The same price for every call.',
  per_token: 'Dollars per million tokens the call uses, as model providers price them.',
  cost_plus: "The model's cost of each call on the platform's key, times your markup.",
};

/** The card the fields describe, in words, when they are complete ("$2.00 per million input tokens"…). */
function cardPreview(values: PriceFormValues, type: AppType | ''): string[] | null {
  if (Object.keys(validatePriceForm(values, type)).length > 0) return null;
  const body = priceBodyOf(values);
  return 'pricing' in body ? rateCardLines(rateCardOf(body.pricing)) : null;
}

export function PriceFormFields<Values extends PriceFormValues>({
  form,
  appType,
  note,
  perCallLabel = 'Price per API call (USD)',
  outputTestId,
}: {
  form: PriceFormState<Values>;
  appType: AppType | '';
  /** A sentence under the fields, e.g. how a change reaches callers. */
  note?: string;
  perCallLabel?: string;
  outputTestId?: string;
}) {
  const { values, errors, fieldId } = form;
  const set = (name: PriceFormKey, value: string) => form.set(name as keyof Values, value as Values[keyof Values]);
  const isWorkflow = appType === 'workflow';
  const maximumRequired = values.price_form === 'per_token' && isWorkflow;
  const preview = cardPreview(values, appType);

  const dollarsField = (key: PriceFormKey, label: string, options: { hint?: string; required?: boolean; testId?: string; suffix?: string } = {}) => {
    const id = fieldId(key);
    const micros = dollarsToMicros(values[key]);
    const shown = options.suffix ? (
      <>
        <output aria-live="polite" data-testid={options.testId}>{`${formatMicros(micros ?? 0)} ${options.suffix}`}</output>
        {options.hint ? ` · ${options.hint}` : null}
      </>
    ) : (
      options.hint
    );
    return (
      <FormField id={id} label={label} error={errors[key]} hint={shown}>
        <input
          id={id}
          name={key}
          type="text"
          inputMode="decimal"
          autoComplete="off"
          required={options.required}
          value={values[key]}
          onChange={(event) => set(key, event.target.value)}
          className={`${inputField} sm:max-w-xs`}
          {...describedBy(id, { error: errors[key], hint: Boolean(shown) })}
        />
      </FormField>
    );
  };

  return (
    <fieldset className="space-y-4" data-testid="price-form">
      <legend className="block text-sm font-medium text-gray-700">Price form</legend>
      <div
        id={fieldId('price_form')}
        role="radiogroup"
        aria-label="Price form"
        tabIndex={-1}
        className="mt-1 flex flex-wrap gap-2"
        {...describedBy(fieldId('price_form'), { error: errors.price_form, hint: true })}
      >
        {(['per_call', 'per_token', 'cost_plus'] as const).map((name) => {
          const disabled = name === 'cost_plus' && isWorkflow;
          const checked = values.price_form === name;
          return (
            <label
              key={name}
              className={`inline-flex items-center gap-2 rounded-md px-3 py-2 text-sm ring-1 ${
                checked ? 'bg-indigo-50 font-medium text-indigo-900 ring-indigo-400' : 'bg-white text-gray-800 ring-gray-300'
              } ${disabled ? 'cursor-not-allowed opacity-50' : 'cursor-pointer'}`}
            >
              <input
                type="radio"
                name="price_form"
                value={name}
                checked={checked}
                disabled={disabled}
                onChange={() => set('price_form', name)}
                className="h-4 w-4 text-indigo-600"
              />
              {PRICE_FORM_LABELS[name]}
            </label>
          );
        })}
      </div>
      <div id={`${fieldId('price_form')}-hint`} className="text-sm text-gray-500">
        {FORM_HINTS[values.price_form]}
        {isWorkflow ? (
          <span className="block" data-testid="cost-plus-reason">
            {COST_PLUS_WORKFLOW_REASON}
          </span>
        ) : null}
      </div>
      {errors.price_form ? (
        <p id={`${fieldId('price_form')}-error`} className="text-sm text-red-600">
          {errors.price_form}
        </p>
      ) : null}

      {values.price_form === 'per_call' ? dollarsField('price', perCallLabel, { required: true, testId: outputTestId, suffix: 'per call', hint: note }) : null}
      {values.price_form === 'per_token' ? (
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
          {dollarsField('input_rate', 'Input per million tokens (USD)', { required: true })}
          {dollarsField('output_rate', 'Output per million tokens (USD)', { required: true })}
          {dollarsField('cached_rate', 'Cached input per million (USD)', { hint: 'Optional. Empty: the input rate.' })}
          {dollarsField('call_fee', 'Fee per call (USD, optional)', { hint: 'Added to every call.' })}
        </div>
      ) : null}
      {values.price_form === 'cost_plus' ? (
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
          <FormField id={fieldId('markup')} label="Markup (× model cost)" error={errors.markup} hint="1.25 is the model's cost plus 25%.">
            <input
              id={fieldId('markup')}
              name="markup"
              type="text"
              inputMode="decimal"
              autoComplete="off"
              required
              value={values.markup}
              onChange={(event) => set('markup', event.target.value)}
              className={`${inputField} sm:max-w-xs`}
              {...describedBy(fieldId('markup'), { error: errors.markup, hint: true })}
            />
          </FormField>
          {dollarsField('call_fee', 'Fee per call (USD, optional)', { hint: 'Added to every call.' })}
        </div>
      ) : null}

      {/* A price per call is its own least and most: the two show for it only when a card already has them. */}
      {values.price_form !== 'per_call' || values.minimum.trim() !== '' || values.maximum.trim() !== '' ? (
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
          {dollarsField('minimum', 'Minimum per call (USD, optional)', { hint: 'The least a call is charged.' })}
          {dollarsField('maximum', maximumRequired ? 'Most per call (USD)' : 'Most per call (USD, optional)', {
            required: maximumRequired,
            hint: maximumRequired ? WORKFLOW_MAXIMUM_REASON : 'A cap on any one call; callers are held for it before the call.',
          })}
        </div>
      ) : null}

      {preview && values.price_form !== 'per_call' ? (
        <div className="rounded-md bg-gray-50 p-3 text-sm text-gray-700 ring-1 ring-gray-200" data-testid="price-form-preview">
          <p className="font-medium text-gray-900">Callers see</p>
          <ul className="mt-1 list-inside list-disc">
            {preview.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
          {note ? <p className="mt-1 text-gray-500">{note}</p> : null}
        </div>
      ) : values.price_form !== 'per_call' && note ? (
        <p className="text-sm text-gray-500">{note}</p>
      ) : null}
    </fieldset>
  );
}
