import { useSearchParams } from 'react-router';
import { CreateAppForm } from '../components/create-app-form';
import { typeFromQuery } from '../lib/app-form.utils';

export function CreateAppPage() {
  const [params] = useSearchParams();
  const type = typeFromQuery(params.get('type'));
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 lg:px-8">
      <h1 className="text-2xl font-bold tracking-tight text-gray-900 sm:text-3xl">Create New Prompt or Workflow Application</h1>
      <p className="mt-1 text-sm text-gray-600">Publish a prompt or a Dify workflow as a paid API endpoint.</p>
      <div className="mt-8">
        {/* A new ?type starts a fresh form with that type. */}
        <CreateAppForm key={type} initialType={type} />
      </div>
    </div>
  );
}
