import type { Application } from '@tollbooth/contract';
import { Link } from 'react-router';
import { secondaryButton } from '@/components/ui/styles';
import { TitledCard } from '@/components/ui/titled-card';
import { appEndpointPath } from '@/lib/app-endpoint';

export function ApiEndpointPanel({ app }: { app: Application }) {
  return (
    <TitledCard
      id="api-endpoint"
      title="API Endpoint"
      action={
        <Link to={`/api-test?app=${encodeURIComponent(app.slug)}`} className={secondaryButton}>
          Test API
        </Link>
      }
    >
      <p className="mt-4 overflow-x-auto rounded-md bg-gray-900 px-4 py-3 font-mono text-sm text-gray-100">
        <code data-testid="api-endpoint">{`POST ${appEndpointPath(app)}`}</code>
      </p>
      <p className="mt-2 text-sm text-gray-500">Call it with an API key or access token in the Authorization header (Bearer).</p>
    </TitledCard>
  );
}
