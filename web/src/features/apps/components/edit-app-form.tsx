import type { Application } from '@tollbooth/contract';
import type { FormEvent } from 'react';
import { AppBasicsFields } from '@/components/app-basics/app-basics-fields';
import { HighPriceWarning, useHighPriceGuard } from '@/components/pricing/high-price-guard';
import { PRICE_FORM_FIELD_ORDER, perCallPriceCents } from '@/components/pricing/price-form.utils';
import { PriceFormFields } from '@/components/pricing/price-form-fields';
import { FormAlert } from '@/components/ui/form-alert';
import { primaryButton, secondaryButton } from '@/components/ui/styles';
import { useUpdateApp } from '@/lib/api/apps/update-app';
import { getErrorMessage, isUnauthorizedError } from '@/lib/errors';
import { formatPrice } from '@/lib/price';
import { APP_PRICE_FIELD, buildUpdateBody, type EditAppValues, editValuesOf, validateEditApp } from '../lib/app-form.utils';
import { serverFieldErrors } from '../lib/app-form-errors';
import { useAppForm } from '../lib/use-app-form';

interface EditAppFormProps {
  app: Application;
  onDone: () => void;
}

export function EditAppForm({ app, onDone }: EditAppFormProps) {
  const updateApp = useUpdateApp();
  const form = useAppForm<EditAppValues>(() => editValuesOf(app), ['name', ...PRICE_FORM_FIELD_ORDER]);
  const { id, values, accept } = form;
  const highPrice = useHighPriceGuard();

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    submit();
  }

  /** `confirmedCents`: the price the high-price warning's button confirmed. */
  function submit(confirmedCents: number | null = null) {
    if (updateApp.isPending) return;
    if (!accept(validateEditApp(values, app.type))) return;
    const priceCents = perCallPriceCents(values);
    // An unchanged price was confirmed when it was set; a per-token or cost-plus card is weighed by the cost panel.
    if (priceCents !== null && priceCents !== app.price_cents && !highPrice.allow(priceCents, null, confirmedCents)) return;
    updateApp.mutate(
      { slug: app.slug, changes: buildUpdateBody(values) },
      {
        onSuccess: onDone,
        onError: (error) => {
          const found = serverFieldErrors(error, values.price_form);
          if (found) accept(found);
        },
      },
    );
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
        price={APP_PRICE_FIELD}
        pricePanel={
          <PriceFormFields
            form={form}
            appType={app.type}
            note={app.status === 'live' ? 'Increases reach callers after a notice period; decreases apply at once.' : undefined}
          />
        }
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
