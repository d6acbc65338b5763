// Settings → Webhooks (/settings/webhooks, issue 62): the account's endpoints (URL, events, enabled),
// each signing secret shown once, a failing endpoint told on the page, the delivery log with
// "Send again", and the thresholds and mail of the account's alerts. Laid out like Profile Settings.
import { WEBHOOK_EVENT_TYPES, type WebhookAttempt, type WebhookEndpoint, type WebhookEventType } from '@tollbooth/contract';
import { type FormEvent, useState } from 'react';
import { ErrorLine } from '@/components/ui/form-alert';
import { PageSpinner } from '@/components/ui/spinner';
import { inputField, primaryButton, secondaryButton } from '@/components/ui/styles';
import { getErrorMessage } from '@/lib/errors';
import {
  useCreateWebhookEndpoint,
  useDeleteWebhookEndpoint,
  useSendAgain,
  useUpdateWebhookEndpoint,
  useUpdateWebhookSettings,
  useWebhookAttempts,
  useWebhookEndpoints,
  useWebhookSettings,
} from '../api/webhooks';

const card = 'rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200';

function EventChoices({
  name,
  chosen,
  onChange,
  disabled,
}: {
  name: string;
  chosen: WebhookEventType[];
  onChange: (next: WebhookEventType[]) => void;
  disabled?: boolean;
}) {
  return (
    <fieldset className="grid grid-cols-1 gap-1 sm:grid-cols-2 lg:grid-cols-3" disabled={disabled}>
      <legend className="mb-2 text-sm font-medium text-gray-900">Events</legend>
      {WEBHOOK_EVENT_TYPES.map((type) => (
        <label key={type} className="flex items-center gap-2 text-sm text-gray-700">
          <input
            type="checkbox"
            name={name}
            value={type}
            checked={chosen.includes(type)}
            onChange={(event) => onChange(event.target.checked ? [...chosen, type] : chosen.filter((t) => t !== type))}
          />
          <span className="font-mono text-xs">{type}</span>
        </label>
      ))}
    </fieldset>
  );
}

function AddEndpointForm() {
  const create = useCreateWebhookEndpoint();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<WebhookEventType[]>(['topup.succeeded', 'credits.low']);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ url: url.trim(), description, events }, { onSuccess: () => setUrl('') });
  };
  return (
    <form onSubmit={onSubmit} className="space-y-4" aria-labelledby="add-endpoint-title">
      <h3 id="add-endpoint-title" className="text-base font-semibold text-gray-900">
        Add an endpoint
      </h3>
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <label className="block text-sm font-medium text-gray-900">
          Endpoint URL
          <input
            className={`${inputField} mt-1`}
            name="url"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            placeholder="https://example.com/tollbooth-events"
            required
          />
        </label>
        <label className="block text-sm font-medium text-gray-900">
          Description
          <input
            className={`${inputField} mt-1`}
            name="description"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            placeholder="Accounting system"
          />
        </label>
      </div>
      <EventChoices name="events" chosen={events} onChange={setEvents} />
      <div className="flex items-center gap-3">
        <button type="submit" className={primaryButton} disabled={create.isPending || events.length === 0}>
          {create.isPending ? 'Adding…' : 'Add endpoint'}
        </button>
        {create.isError ? <ErrorLine>{getErrorMessage(create.error)}</ErrorLine> : null}
      </div>
      {create.data ? (
        <div role="status" className="rounded-md bg-amber-50 p-4 text-sm text-amber-900 ring-1 ring-amber-200">
          <p className="font-medium">Signing secret for {create.data.url} — shown this once:</p>
          <p className="mt-2 select-all break-all font-mono" data-testid="webhook-secret">
            {create.data.secret}
          </p>
          <p className="mt-2">
            Verify each delivery's <span className="font-mono">webhook-signature</span> with it (any Standard Webhooks library does).
          </p>
        </div>
      ) : null}
    </form>
  );
}

function statusOf(attempt: WebhookAttempt) {
  if (attempt.ok) return { text: attempt.status_code ? `${attempt.status_code} OK` : 'Sent', className: 'bg-green-50 text-green-700 ring-green-600/20' };
  return { text: attempt.status_code ? String(attempt.status_code) : 'No answer', className: 'bg-red-50 text-red-700 ring-red-600/20' };
}

function DeliveryLog({ endpoint }: { endpoint: WebhookEndpoint }) {
  const attempts = useWebhookAttempts(endpoint.id);
  const sendAgain = useSendAgain();
  return (
    <section className="mt-4 overflow-x-auto" aria-label={`Delivery log of ${endpoint.url}`}>
      <h4 className="text-sm font-semibold text-gray-900">Delivery log</h4>
      {attempts.isLoading ? (
        <p className="mt-2 text-sm text-gray-500">Loading…</p>
      ) : (attempts.data ?? []).length === 0 ? (
        <p className="mt-2 text-sm text-gray-500">No deliveries yet.</p>
      ) : (
        <table className="mt-2 min-w-full divide-y divide-gray-200 text-sm">
          <thead>
            <tr className="text-left text-xs font-medium tracking-wide text-gray-500 uppercase">
              <th className="py-2 pr-3">Time</th>
              <th className="py-2 pr-3">Event</th>
              <th className="py-2 pr-3">Status</th>
              <th className="py-2 pr-3">Latency</th>
              <th className="py-2 pr-3">Response</th>
              <th className="py-2 pr-3" />
            </tr>
          </thead>
          <tbody className="divide-y divide-gray-100">
            {(attempts.data ?? []).map((attempt) => {
              const status = statusOf(attempt);
              return (
                <tr key={attempt.id} className="align-top">
                  <td className="py-2 pr-3 whitespace-nowrap text-gray-700">{new Date(attempt.attempted_at).toLocaleString()}</td>
                  <td className="py-2 pr-3">
                    <span className="font-mono text-xs">{attempt.event_type}</span>
                    <div className="font-mono text-[11px] text-gray-500">{attempt.event_id}</div>
                  </td>
                  <td className="py-2 pr-3 whitespace-nowrap">
                    <span className={`inline-flex rounded-md px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${status.className}`}>{status.text}</span>
                    {attempt.manual ? <span className="ml-1 text-xs text-gray-500">sent again</span> : null}
                    {attempt.delivery_status === 'pending' && !attempt.ok ? <div className="text-xs text-gray-500">retrying</div> : null}
                    {attempt.delivery_status === 'failed' ? <div className="text-xs text-red-700">gave up</div> : null}
                  </td>
                  <td className="py-2 pr-3 whitespace-nowrap text-gray-700">{attempt.latency_ms} ms</td>
                  <td className="max-w-xs py-2 pr-3">
                    {attempt.error ? <div className="text-xs text-red-700">{attempt.error}</div> : null}
                    <div className="truncate font-mono text-xs text-gray-600" title={attempt.response_snippet}>
                      {attempt.response_snippet}
                    </div>
                  </td>
                  <td className="py-2 pr-3">
                    <button
                      type="button"
                      className={secondaryButton}
                      disabled={sendAgain.isPending}
                      onClick={() => sendAgain.mutate({ id: endpoint.id, deliveryId: attempt.delivery_id })}
                    >
                      Send again
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

function EndpointCard({ endpoint }: { endpoint: WebhookEndpoint }) {
  const update = useUpdateWebhookEndpoint();
  const remove = useDeleteWebhookEndpoint();
  const [showLog, setShowLog] = useState(false);
  return (
    <li className="rounded-md p-4 ring-1 ring-gray-200">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <p className="break-all font-mono text-sm text-gray-900">{endpoint.url}</p>
          {endpoint.description ? <p className="text-sm text-gray-600">{endpoint.description}</p> : null}
          <p className="mt-1 flex flex-wrap gap-1">
            {endpoint.events.map((type) => (
              <span key={type} className="rounded bg-gray-100 px-1.5 py-0.5 font-mono text-[11px] text-gray-700">
                {type}
              </span>
            ))}
          </p>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <span className={`text-xs font-medium ${endpoint.enabled ? 'text-green-700' : 'text-gray-500'}`}>{endpoint.enabled ? 'Enabled' : 'Disabled'}</span>
          <button type="button" className={secondaryButton} onClick={() => setShowLog(!showLog)}>
            {showLog ? 'Hide log' : 'Delivery log'}
          </button>
          <button
            type="button"
            className={secondaryButton}
            disabled={update.isPending}
            onClick={() => update.mutate({ id: endpoint.id, body: { enabled: !endpoint.enabled } })}
          >
            {endpoint.enabled ? 'Disable' : 'Enable'}
          </button>
          <button type="button" className={secondaryButton} disabled={remove.isPending} onClick={() => remove.mutate(endpoint.id)}>
            Delete
          </button>
        </div>
      </div>
      {endpoint.failing_since ? (
        <div role="alert" className="mt-3 rounded-md bg-red-50 p-3 text-sm text-red-700 ring-1 ring-red-200">
          <p className="font-medium">Failing since {new Date(endpoint.failing_since).toLocaleString()}</p>
          <p className="mt-1">{endpoint.failing_reason}</p>
          <p className="mt-1">New events are still attempted; one success clears this. Fix the endpoint, then send the failed deliveries again from its log.</p>
        </div>
      ) : null}
      {showLog ? <DeliveryLog endpoint={endpoint} /> : null}
    </li>
  );
}

/** The alert thresholds, each off while empty. */
const THRESHOLDS = [
  { key: 'creditsLow', label: 'Credits low below ($)', inputMode: 'decimal' },
  { key: 'percent', label: 'or below % of last top-up', inputMode: 'numeric' },
  { key: 'errorRate', label: 'App error rate above (%, 5 min)', inputMode: 'numeric' },
] as const;

function AlertSettingsForm() {
  const settings = useWebhookSettings();
  const save = useUpdateWebhookSettings();
  const [draft, setDraft] = useState<{ creditsLow: string; percent: string; errorRate: string; mail: WebhookEventType[] } | null>(null);
  if (!settings.data)
    return settings.isError ? <p className="text-sm text-red-700">{getErrorMessage(settings.error)}</p> : <p className="text-sm text-gray-500">Loading…</p>;
  const current = draft ?? {
    creditsLow: settings.data.credits_low_cents === null ? '' : (settings.data.credits_low_cents / 100).toFixed(2),
    percent: settings.data.credits_low_percent === null ? '' : String(settings.data.credits_low_percent),
    errorRate: settings.data.error_rate_percent === null ? '' : String(settings.data.error_rate_percent),
    mail: settings.data.mail_events,
  };
  const number = (text: string) => (text.trim() === '' ? null : Number(text));
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const dollars = number(current.creditsLow);
    save.mutate(
      {
        credits_low_cents: dollars === null ? null : Math.round(dollars * 100),
        credits_low_percent: number(current.percent),
        error_rate_percent: number(current.errorRate),
        mail_events: current.mail,
      },
      { onSuccess: () => setDraft(null) },
    );
  };
  return (
    <form onSubmit={onSubmit} className="space-y-4">
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
        {THRESHOLDS.map(({ key, label, inputMode }) => (
          <label key={key} className="block text-sm font-medium text-gray-900">
            {label}
            <input
              className={`${inputField} mt-1`}
              inputMode={inputMode}
              value={current[key]}
              onChange={(e) => setDraft({ ...current, [key]: e.target.value })}
              placeholder="off"
            />
          </label>
        ))}
      </div>
      <div>
        <p className="mb-2 text-sm text-gray-600">
          {settings.data.mail_available ? 'Also send these events to your email:' : 'Mail is not set up on this server (SMTP_URL); these apply once it is.'}
        </p>
        <EventChoices name="mail_events" chosen={current.mail} onChange={(mail) => setDraft({ ...current, mail })} />
      </div>
      <div className="flex items-center gap-3">
        <button type="submit" className={primaryButton} disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save alerts'}
        </button>
        {save.isSuccess && draft === null ? <p className="text-sm text-green-700">Saved.</p> : null}
        {save.isError ? <ErrorLine>{getErrorMessage(save.error)}</ErrorLine> : null}
      </div>
    </form>
  );
}

export function WebhooksPage() {
  const endpoints = useWebhookEndpoints();
  return (
    <div className="mx-auto max-w-5xl px-4 py-8 sm:px-6 lg:px-8">
      <h1 className="text-2xl font-bold tracking-tight text-gray-900 sm:text-3xl">Webhooks &amp; Alerts</h1>
      <p className="mt-1 text-sm text-gray-600">
        Tell your systems when money moves: signed deliveries (Standard Webhooks), retried for 24 hours, with a log per endpoint.
      </p>
      <div className="mt-8 space-y-6">
        <section aria-labelledby="endpoints-title" className={card}>
          <h2 id="endpoints-title" className="text-lg font-semibold text-gray-900">
            Endpoints
          </h2>
          <div className="mt-4">
            {endpoints.data ? (
              endpoints.data.length === 0 ? (
                <p className="text-sm text-gray-500">No endpoints yet.</p>
              ) : (
                <ul className="space-y-3">
                  {endpoints.data.map((endpoint) => (
                    <EndpointCard key={endpoint.id} endpoint={endpoint} />
                  ))}
                </ul>
              )
            ) : endpoints.isError ? (
              <p className="text-sm text-red-700">Failed to load endpoints: {getErrorMessage(endpoints.error)}</p>
            ) : (
              <PageSpinner message="Loading endpoints..." />
            )}
          </div>
          <div className="mt-6 border-t border-gray-200 pt-6">
            <AddEndpointForm />
          </div>
        </section>
        <section aria-labelledby="alerts-title" className={card}>
          <h2 id="alerts-title" className="text-lg font-semibold text-gray-900">
            Alerts and mail
          </h2>
          <p className="mt-1 text-sm text-gray-600">Thresholds fire once each time they are crossed, not once per call.</p>
          <div className="mt-4">
            <AlertSettingsForm />
          </div>
        </section>
      </div>
    </div>
  );
}
