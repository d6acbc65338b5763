import { Link } from 'react-router';
import { primaryButton, secondaryButton } from '@/components/ui/styles';

export interface LandingPageProps {
  productName: string;
  /** The app passes the sign-in state; this feature does not read it on its own. */
  authStatus: 'loading' | 'authenticated' | 'unauthenticated';
  /** Display name or e-mail of the signed-in user, for the welcome-back note. */
  userName?: string | null;
}

const features = [
  {
    title: 'One-Click API Hosting',
    text: 'Publish a prompt or a workflow and get a hosted, metered API endpoint straight away. No servers, no deployments.',
    icon: 'M5 12h14M12 5l7 7-7 7',
  },
  {
    title: 'Seamless Payments',
    text: 'Set a price per call. Callers pay from their credits or a subscription plan, and every successful call earns you revenue.',
    icon: 'M3 10h18M7 15h1m4 0h1m-7 4h12a3 3 0 003-3V8a3 3 0 00-3-3H6a3 3 0 00-3 3v8a3 3 0 003 3z',
  },
  {
    title: 'Real-Time Analytics',
    text: 'Follow invocations, users, success rates, response times, token usage and revenue for every endpoint.',
    icon: 'M9 19v-6a2 2 0 00-2-2H5a2 2 0 00-2 2v6a2 2 0 002 2h2a2 2 0 002-2zm0 0V9a2 2 0 012-2h2a2 2 0 012 2v10m-6 0a2 2 0 002 2h2a2 2 0 002-2m0 0V5a2 2 0 012-2h2a2 2 0 012 2v14a2 2 0 01-2 2h-2a2 2 0 01-2-2z',
  },
];

export function LandingPage({ productName, authStatus, userName }: LandingPageProps) {
  return (
    <div>
      <section className="bg-gradient-to-b from-indigo-50 to-gray-50">
        <div className="mx-auto max-w-5xl px-4 py-20 text-center sm:px-6 sm:py-28 lg:px-8">
          <p className="text-sm font-semibold tracking-wide text-indigo-600 uppercase">{productName}</p>
          <h1 className="mt-4 text-4xl font-extrabold tracking-tight text-gray-900 sm:text-5xl md:text-6xl">
            Monetize your AI prompts <span className="block text-indigo-600">as pay-per-call APIs</span>
          </h1>
          <p className="mx-auto mt-6 max-w-2xl text-lg text-gray-600">
            Turn your best prompts and AI workflows into hosted API endpoints, set a price per call, and earn revenue every time someone uses them.
          </p>

          <div className="mt-10 flex flex-col items-center justify-center gap-3 sm:flex-row">
            {authStatus === 'unauthenticated' ? (
              <>
                <Link to="/register" className={`${primaryButton} px-6 py-3 text-base`}>
                  Get Started Free
                </Link>
                <Link to="/login" className={`${secondaryButton} px-6 py-3 text-base`}>
                  Sign In
                </Link>
                <a href="#features" className={`${secondaryButton} px-6 py-3 text-base`}>
                  Learn more<span className="sr-only"> about the features</span>
                </a>
              </>
            ) : authStatus === 'loading' ? (
              <button type="button" disabled className={`${primaryButton} px-6 py-3 text-base`}>
                Loading...
              </button>
            ) : (
              <Link to="/dashboard" className={`${primaryButton} px-6 py-3 text-base`}>
                Go to Dashboard
              </Link>
            )}
          </div>

          {authStatus === 'authenticated' ? <p className="mt-4 text-sm text-gray-600">{userName ? `Welcome back, ${userName}!` : 'Welcome back!'}</p> : null}
        </div>
      </section>

      <section id="features" className="mx-auto max-w-6xl scroll-mt-20 px-4 py-16 sm:px-6 lg:px-8">
        <h2 className="text-center text-3xl font-bold tracking-tight text-gray-900">Everything you need to sell AI</h2>
        <div className="mt-12 grid grid-cols-1 gap-8 md:grid-cols-3">
          {features.map((feature) => (
            <div key={feature.title} className="rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200">
              <span className="flex h-12 w-12 items-center justify-center rounded-md bg-indigo-600 text-white">
                <svg className="h-6 w-6" fill="none" viewBox="0 0 24 24" stroke="currentColor" strokeWidth="2" aria-hidden="true">
                  <path strokeLinecap="round" strokeLinejoin="round" d={feature.icon} />
                </svg>
              </span>
              <h3 className="mt-4 text-lg font-semibold text-gray-900">{feature.title}</h3>
              <p className="mt-2 text-gray-600">{feature.text}</p>
            </div>
          ))}
        </div>
      </section>
    </div>
  );
}
