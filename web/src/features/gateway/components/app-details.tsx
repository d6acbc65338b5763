import type { Application } from '@tollbooth/contract';
import { Spinner } from '@/components/ui/spinner';
import { secondaryButton } from '@/components/ui/styles';
import { TitledCard } from '@/components/ui/titled-card';
import { appEndpointPath } from '@/lib/app-endpoint';
import { getErrorMessage } from '@/lib/errors';
import { formatDate } from '@/lib/format';
import { priceLines, rateCardNow, upcomingRateCard } from '@/lib/rate-card';

interface AppDetailsProps {
  app: Application | undefined;
  isLoading: boolean;
  error: unknown;
  /** The app's model is answered by the built-in demo model. */
  demoModel?: boolean;
  /** Download App, for anyone signed in who may call the app. */
  download?: { onClick: () => void; running: boolean } | undefined;
}

/** The Application Details box: what a call to the entered slug will reach, and what it costs. */
export function AppDetails({ app, isLoading, error, demoModel = false, download }: AppDetailsProps) {
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

  // The rate card line by line (issue 60): a per-token app's rates, its fee, minimum and most per call.
  const upcoming = upcomingRateCard(app);
  const rows: Array<[string, string]> = [
    ['Name', app.name],
    ['Type', app.type],
    ['Status', app.status],
    ['Price', priceLines(rateCardNow(app)).join('\n')],
    ...(demoModel ? [['Model', 'Demo model: free sample answers (its provider is not configured on this server)'] as [string, string]] : []),
    ...(upcoming
      ? [['Upcoming price', `From ${formatDate(upcoming.at)} (announced increase):\n${priceLines(upcoming.card).join('\n')}`] as [string, string]]
      : []),
    ['Endpoint', appEndpointPath(app)],
  ];
  return (
    <TitledCard
      id="console-app-details"
      title="Application Details"
      className="rounded-lg bg-gray-50 p-6 ring-1 ring-gray-200"
      action={
        download ? (
          <button
            type="button"
            className={secondaryButton}
            disabled={download.running}
            title="A ready-to-run front-end app for this endpoint; it runs on your own API key, entered in its .env"
            onClick={download.onClick}
          >
            {download.running ? 'Downloading...' : 'Download App'}
          </button>
        ) : null
      }
    >
      <dl className="mt-4 grid grid-cols-1 gap-x-6 gap-y-3 sm:grid-cols-2">
        {rows.map(([label, value]) => (
          <div key={label} className={label === 'Endpoint' ? 'sm:col-span-2' : undefined}>
            <dt className="text-sm font-medium text-gray-500">{label}</dt>
            <dd
              className={`mt-1 text-sm break-all whitespace-pre-line text-gray-900 ${label === 'Endpoint' ? 'font-mono' : ''}`}
              data-testid={label === 'Price' ? 'console-price' : undefined}
            >
              {value}
            </dd>
          </div>
        ))}
      </dl>
    </TitledCard>
  );
}
