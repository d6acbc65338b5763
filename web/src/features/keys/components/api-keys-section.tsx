import type { ApiKeyCreated } from '@tollbooth/contract';
import { useState } from 'react';
import { Spinner } from '@/components/ui/spinner';
import { TitledCard } from '@/components/ui/titled-card';
import { getErrorMessage, isUnauthorizedError } from '@/lib/errors';
import { useApiKeys } from '../api/get-api-keys';
import { ApiKeyTable } from './api-key-table';
import { CreateApiKeyForm } from './create-api-key-form';
import { CreatePublishableKeyForm } from './create-publishable-key-form';
import { NewApiKeyNotice } from './new-api-key-notice';
import { PublishableKeyTable } from './publishable-key-table';

function KeyList({ kind }: { kind: 'secret' | 'publishable' }) {
  const keys = useApiKeys();
  if (keys.data) {
    const listed = keys.data.filter((key) => (key.kind ?? 'secret') === kind);
    return kind === 'secret' ? <ApiKeyTable keys={listed} /> : <PublishableKeyTable keys={listed} />;
  }
  if (keys.isError) {
    // A 401 is only logged (by the API client). A load failure is no alert: nothing was asked of the user yet.
    if (isUnauthorizedError(keys.error)) return null;
    return <p className="text-sm text-red-700">Failed to load API keys: {getErrorMessage(keys.error)}</p>;
  }
  return <Spinner label="Loading API keys" />;
}

/** Create, list and revoke the keys that call paid applications on this account's credits. */
export function ApiKeysSection() {
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  return (
    <TitledCard id="api-keys" title="API Keys">
      <p className="mt-1 text-sm text-gray-600">
        Call applications with <code className="font-mono">Authorization: Bearer &lt;key&gt;</code>. Calls to other creators' apps are paid from your credits.
      </p>
      <div className="mt-6 space-y-6">
        <CreateApiKeyForm onCreated={setCreated} />
        {created ? <NewApiKeyNotice key={created.id} created={created} onDismiss={() => setCreated(null)} /> : null}
        <KeyList kind="secret" />
      </div>
      <h3 className="mt-10 text-base font-semibold text-gray-900">Publishable Keys (embed widget)</h3>
      <p className="mt-1 text-sm text-gray-600">
        Put an app on your website with a one-line snippet (on the app's page or in Explore). Its calls are paid from your credits like any call.
      </p>
      <div className="mt-6 space-y-6">
        <CreatePublishableKeyForm />
        <KeyList kind="publishable" />
      </div>
    </TitledCard>
  );
}
