import type { Application } from '@tollbooth/contract';
import { Link } from 'react-router';
import { secondaryButton } from '@/components/ui/styles';
import { appEndpointPath } from '@/lib/app-endpoint';

export function ApiEndpointPanel({ app }: { app: Application }) {
  return (
    <section aria-labelledby="api-endpoint-title" className="rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="api-endpoint-title" className="text-lg font-semibold text-gray-900">
          API Endpoint
        </h2>
        <Link to={`/api-test?app=${encodeURIComponent(app.slug)}`} className={secondaryButton}>
          Test API
        </Link>
      </div>
      <p className="mt-4 overflow-x-auto rounded-md bg-gray-900 px-4 py-3 font-mono text-sm text-gray-100">
        <code data-testid="api-endpoint">{`POST ${appEndpointPath(app)}`}</code>
      </p>
      <p className="mt-2 text-sm text-gray-500">Call it with an API key or access token in the Authorization header (Bearer).</p>
    </section>
  );
}
