import type { Application } from '@tollbooth/contract';
import type { FormEvent } from 'react';
import { AppBasicsFields } from '@/components/app-basics/app-basics-fields';
import { HighPriceWarning, useHighPriceGuard } from '@/components/pricing/high-price-guard';
import { FormAlert } from '@/components/ui/form-alert';
import { primaryButton, secondaryButton } from '@/components/ui/styles';
import { useUpdateApp } from '@/lib/api/apps/update-app';
import { getErrorMessage, isUnauthorizedError } from '@/lib/errors';
import { centsToDollars, dollarsToCents, formatPrice } from '@/lib/price';
import { APP_PRICE_FIELD, buildUpdateBody, type EditAppValues, validateEditApp } from '../lib/app-form.utils';
import { useAppForm } from '../lib/use-app-form';

interface EditAppFormProps {
  app: Application;
  onDone: () => void;
}

export function EditAppForm({ app, onDone }: EditAppFormProps) {
  const updateApp = useUpdateApp();
  const form = useAppForm<EditAppValues>(
    () => ({ name: app.name, description: app.description, visibility: app.visibility, price: centsToDollars(app.price_cents) }),
    ['name', 'price'],
  );
  const { id, values, accept } = form;
  const highPrice = useHighPriceGuard();

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    submit();
  }

  /** `confirmedCents`: the price the high-price warning's button confirmed. */
  function submit(confirmedCents: number | null = null) {
    if (updateApp.isPending) return;
    if (!accept(validateEditApp(values))) return;
    const priceCents = dollarsToCents(values.price);
    // An unchanged price was confirmed when it was set.
    if (priceCents !== app.price_cents && !highPrice.allow(priceCents, null, confirmedCents)) return;
    updateApp.mutate({ slug: app.slug, changes: buildUpdateBody(values) }, { onSuccess: onDone });
  }

  const serverError = updateApp.error && !isUnauthorizedError(updateApp.error) ? getErrorMessage(updateApp.error) : null;

  return (
    <form onSubmit={handleSubmit} noValidate aria-labelledby={`${id}-title`} className="space-y-5 rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200">
      <h2 id={`${id}-title`} className="text-lg font-semibold text-gray-900">
        Edit Application
      </h2>
      <FormAlert message={serverError} />

      <AppBasicsFields
        layout="edit"
        form={form}
        price={{
          ...APP_PRICE_FIELD,
          note: app.status === 'live' ? 'Increases reach callers after a notice period; decreases apply at once.' : undefined,
        }}
      />

      <HighPriceWarning
        warning={highPrice.warning}
        label={`Save at ${formatPrice(highPrice.warnedPriceCents)} per call`}
        onConfirm={() => submit(highPrice.warnedPriceCents)}
      />

      <div className="flex justify-end gap-3">
        <button type="button" className={secondaryButton} onClick={onDone} disabled={updateApp.isPending}>
          Cancel
        </button>
        <button type="submit" className={primaryButton} disabled={updateApp.isPending}>
          {updateApp.isPending ? 'Saving...' : 'Save Changes'}
        </button>
      </div>
    </form>
  );
}
