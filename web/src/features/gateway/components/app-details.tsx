import type { Application } from '@tollbooth/contract';
import { Spinner } from '@/components/ui/spinner';
import { appEndpointPath } from '@/lib/app-endpoint';
import { getErrorMessage } from '@/lib/errors';
import { formatCents, formatUpcomingPrice } from '@/lib/format';

interface AppDetailsProps {
  app: Application | undefined;
  isLoading: boolean;
  error: unknown;
}

/** The Application Details box: what a call to the entered slug will reach, and what it costs. */
export function AppDetails({ app, isLoading, error }: AppDetailsProps) {
  if (isLoading) {
    return (
      <div className="rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200">
        <Spinner label="Loading application details" />
      </div>
    );
  }
  if (!app) {
    if (!error) return null;
    // Anonymous visitors only see live public apps here; a key may still call others, so this is no error box.
    return <p className="text-sm text-gray-500">Application details are not available: {getErrorMessage(error)}</p>;
  }

  const rows: Array<[string, string]> = [
    ['Name', app.name],
    ['Type', app.type],
    ['Status', app.status],
    ['Price', `${formatCents(app.price_cents)} per call`],
    ...(formatUpcomingPrice(app) ? [['Upcoming price', `${formatUpcomingPrice(app)} (announced increase)`] as [string, string]] : []),
    ['Endpoint', appEndpointPath(app)],
  ];
  return (
    <section aria-labelledby="console-app-details-title" className="rounded-lg bg-gray-50 p-6 ring-1 ring-gray-200">
      <h2 id="console-app-details-title" className="text-lg font-semibold text-gray-900">
        Application Details
      </h2>
      <dl className="mt-4 grid grid-cols-1 gap-x-6 gap-y-3 sm:grid-cols-2">
        {rows.map(([label, value]) => (
          <div key={label} className={label === 'Endpoint' ? 'sm:col-span-2' : undefined}>
            <dt className="text-sm font-medium text-gray-500">{label}</dt>
            <dd className={`mt-1 text-sm break-all text-gray-900 ${label === 'Endpoint' ? 'font-mono' : ''}`}>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
