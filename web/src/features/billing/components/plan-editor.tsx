// The owner's plan editor: create or edit a plan (price in dollars, features as "key: value"
// lines, included calls and dollars of usage per month), deactivate it, and see how many subscribe.
import { formatMicros, type Package } from '@tollbooth/contract';
import { type FormEvent, useState } from 'react';
import { inputField, primaryButton, secondaryButton } from '@/components/ui/styles';
import { getErrorMessage } from '@/lib/errors';
import { useRuntimeConfig } from '@/lib/runtime-config';
import { useDeactivatePackage } from '../api/deactivate-package';
import { useSavePackage } from '../api/save-package';
import { planPrice } from '../lib/plan-price';

const featuresToText = (features: Record<string, string>) =>
  Object.entries(features)
    .map(([key, value]) => `${key}: ${value}`)
    .join('\n');
const textToFeatures = (text: string) =>
  Object.fromEntries(
    text
      .split('\n')
      .map((line) => line.split(/:(.*)/s).map((part) => part.trim()))
      .filter(([key]) => key)
      .map(([key, value]) => [key, value ?? '']),
  );

/** Micro-dollars as the dollars an input field shows: 5000000 → "5", 1500 → "0.0015". */
const microsToDollarsField = (micros: number) => String(micros / 1_000_000);

/** Shown where a paid plan is made on a server without Stripe: nobody could pay for it (issue 25). */
export const PAID_PLAN_WITHOUT_STRIPE =
  'Stripe (the card payment provider) is not configured on this server, so callers cannot pay for a paid plan: it is shown to them as unavailable. Free plans (price 0) work.';

function PlanForm({ slug, plan, onDone }: { slug: string; plan: Package | null; onDone: () => void }) {
  const save = useSavePackage(slug);
  const stripeConfigured = Boolean(useRuntimeConfig().stripe_publishable_key);
  const [name, setName] = useState(plan?.name ?? '');
  const [description, setDescription] = useState(plan?.description ?? '');
  const [price, setPrice] = useState(String(plan?.price ?? '0'));
  const [currency, setCurrency] = useState(plan?.currency ?? 'usd');
  const [included, setIncluded] = useState(String(plan?.included_calls ?? 0));
  const [usage, setUsage] = useState(microsToDollarsField(plan?.included_usage_micros ?? 0));
  const [features, setFeatures] = useState(featuresToText(plan?.features ?? {}));
  const [active, setActive] = useState(plan?.is_active ?? true);
  async function submit(event: FormEvent) {
    event.preventDefault();
    await save.mutateAsync({
      id: plan?.id ?? null,
      body: {
        name,
        description,
        price: Number(price),
        currency,
        included_calls: Number(included),
        included_usage_micros: Math.round(Number(usage) * 1_000_000),
        features: textToFeatures(features),
        is_active: active,
      },
    });
    onDone();
  }
  const label = 'block text-sm font-medium text-gray-700';
  return (
    <form onSubmit={(event) => submit(event).catch(() => undefined)} className="grid gap-3 rounded-md bg-gray-50 p-4 sm:grid-cols-2" aria-label="Plan editor">
      <label className={label}>
        Name
        <input className={inputField} value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />
      </label>
      <label className={label}>
        Price (per month)
        <input className={inputField} type="number" min="0" step="0.01" value={price} onChange={(e) => setPrice(e.target.value)} required />
      </label>
      {!stripeConfigured && Number(price) > 0 ? (
        <p
          role="note"
          className="rounded-md bg-yellow-50 p-3 text-sm text-yellow-800 ring-1 ring-yellow-200 sm:col-span-2"
          data-testid="paid-plan-without-stripe"
        >
          {PAID_PLAN_WITHOUT_STRIPE}
        </p>
      ) : null}
      <label className={label}>
        Currency
        <input className={inputField} value={currency} onChange={(e) => setCurrency(e.target.value)} pattern="[A-Za-z]{3}" required />
      </label>
      <label className={label}>
        Included calls per month
        <input className={inputField} type="number" min="0" step="1" value={included} onChange={(e) => setIncluded(e.target.value)} required />
      </label>
      <label className={`${label} sm:col-span-2`}>
        Included usage per month (USD, at the app's rate; then credits pay)
        <input className={inputField} type="number" min="0" step="0.000001" value={usage} onChange={(e) => setUsage(e.target.value)} required />
      </label>
      <label className={`${label} sm:col-span-2`}>
        Description
        <input className={inputField} value={description} onChange={(e) => setDescription(e.target.value)} maxLength={2000} />
      </label>
      <label className={`${label} sm:col-span-2`}>
        Features (one "key: value" per line)
        <textarea className={inputField} rows={3} value={features} onChange={(e) => setFeatures(e.target.value)} />
      </label>
      <label className="flex items-center gap-2 text-sm text-gray-700">
        <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} /> Active
      </label>
      {save.error ? <p className="text-sm text-red-700 sm:col-span-2">{getErrorMessage(save.error)}</p> : null}
      <div className="flex gap-3 sm:col-span-2">
        <button type="submit" className={primaryButton} disabled={save.isPending}>
          {save.isPending ? 'Saving...' : plan ? 'Save plan' : 'Create plan'}
        </button>
        <button type="button" className={secondaryButton} onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export function PlanEditor({ slug, plans }: { slug: string; plans: Package[] }) {
  const [editing, setEditing] = useState<Package | 'new' | null>(null);
  const deactivate = useDeactivatePackage(slug);
  return (
    <section className="mt-10" aria-labelledby="plan-editor-title">
      <div className="flex items-center justify-between">
        <h2 id="plan-editor-title" className="text-lg font-semibold text-gray-900">
          Your plans (owner)
        </h2>
        <button type="button" className={secondaryButton} onClick={() => setEditing('new')} disabled={editing !== null}>
          New plan
        </button>
      </div>
      {editing ? (
        <div className="mt-4">
          <PlanForm slug={slug} plan={editing === 'new' ? null : editing} onDone={() => setEditing(null)} />
        </div>
      ) : null}
      <table className="mt-4 w-full text-left text-sm">
        <thead className="text-gray-500">
          <tr>
            <th className="py-2">Plan</th>
            <th>Price</th>
            <th>Included calls</th>
            <th>Included usage</th>
            <th>Subscribers</th>
            <th>Status</th>
            <th />
          </tr>
        </thead>
        <tbody className="divide-y divide-gray-200">
          {plans.map((plan) => (
            <tr key={plan.id}>
              <td className="py-2 font-medium text-gray-900">{plan.name}</td>
              <td>
                {planPrice(plan.price, plan.currency)} {plan.currency.toUpperCase()}
              </td>
              <td>{plan.included_calls}</td>
              <td>{plan.included_usage_micros ? formatMicros(plan.included_usage_micros) : '—'}</td>
              <td data-testid="subscriber-count">{plan.subscriber_count ?? 0}</td>
              <td>{plan.is_active ? 'Active' : 'Inactive'}</td>
              <td className="space-x-3 text-right">
                <button type="button" className="text-indigo-600 hover:text-indigo-500" onClick={() => setEditing(plan)}>
                  Edit
                </button>
                {plan.is_active ? (
                  <button type="button" className="text-red-600 hover:text-red-500" onClick={() => deactivate.mutate(plan.id)}>
                    Deactivate
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
