// Issue 61, trap 8: the first dashboard (no apps yet) says where to start in one glance: the way to
// build (the prompt builder, a Dify workflow) or to call others' apps (Explore), the credits the
// account starts with, the demo model, and that test runs and one's own calls are paid from credits.

import { useQuery } from '@tanstack/react-query';
import type { BillingBalance } from '@tollbooth/contract';
import { Link } from 'react-router';
import { primaryButton, secondaryButton, textLink } from '@/components/ui/styles';
import { api } from '@/lib/api-client';
import { formatCents } from '@/lib/format';
import { useRuntimeConfig } from '@/lib/runtime-config';

/** The Money page's balance query (the same key, so the two share one answer). */
function useCreditBalance() {
  return useQuery({
    queryKey: ['billing-balance'],
    queryFn: ({ signal }) => api.get<BillingBalance>('/billing/balance/', { auth: 'required', signal }),
  });
}

export function FirstRunPanel() {
  const config = useRuntimeConfig();
  const balance = useCreditBalance();
  const grant = config.signup_credits_cents ?? null;
  const demoNames = config.demo_models.map((model) => model.name);
  const offered = config.models ?? [];
  const allDemo = offered.length > 0 && offered.every((model) => model.demo);

  return (
    <section aria-labelledby="first-run-title" data-testid="first-run-panel" className="rounded-lg bg-white p-6 shadow-sm ring-1 ring-indigo-200">
      <h2 id="first-run-title" className="text-lg font-semibold text-gray-900">
        Start here
      </h2>
      <p className="mt-1 text-sm text-gray-600">Turn a prompt into a paid API in a few minutes, or call the apps others publish.</p>
      <div className="mt-4 flex flex-wrap gap-3">
        <Link to="/prompt-builder" className={primaryButton}>
          Build a prompt app
        </Link>
        <Link to="/applications/create?type=workflow" className={secondaryButton}>
          Wrap a Dify workflow
        </Link>
        <Link to="/explore" className={secondaryButton}>
          Explore apps to call
        </Link>
      </div>
      <dl className="mt-6 grid grid-cols-1 gap-4 text-sm sm:grid-cols-3">
        <div>
          <dt className="font-medium text-gray-900">Your credits</dt>
          <dd className="mt-1 text-gray-600" data-testid="first-run-credits">
            {balance.data ? <span className="font-semibold text-gray-900">{formatCents(balance.data.credits_cents)}</span> : '…'}
            {grant !== null && grant > 0 ? ` — every new account starts with ${formatCents(grant)} of credits.` : null}{' '}
            <Link to="/money" className={textLink}>
              Add credits
            </Link>
          </dd>
        </div>
        <div>
          <dt className="font-medium text-gray-900">The demo model</dt>
          <dd className="mt-1 text-gray-600" data-testid="first-run-demo">
            {allDemo
              ? 'No model provider is configured on this server yet: every model answers from the built-in demo model, with demo replies that are never charged.'
              : demoNames.length > 0
                ? `${demoNames.slice(0, 3).join(', ')}${demoNames.length > 3 ? '…' : ''} answer${demoNames.length === 1 ? 's' : ''} from the built-in demo model here: demo replies, never charged — a free way to try the builder. The other models are real and cost what their provider charges.`
                : 'Every model here is answered by its real provider; the builder shows what a call costs before you publish.'}
          </dd>
        </div>
        <div>
          <dt className="font-medium text-gray-900">What costs credits</dt>
          <dd className="mt-1 text-gray-600">
            Test runs in the builder (Test Prompt) and calls to your own apps (the API Test console) pay their model cost from your credits; calls to others'
            apps pay the app's price. Each test and call shows what it charged.
          </dd>
        </div>
      </dl>
    </section>
  );
}
