import { useEffect, useState } from 'react';
import { Link, Navigate, useNavigate } from 'react-router';
import { Spinner } from '@/components/ui/spinner';
import { textLink } from '@/components/ui/styles';
import { useAuth } from '@/lib/auth/use-auth';
import { consumeIntendedPath } from '../lib/intended-path';
import { describeSignInError, SIGN_IN_FAILED_MESSAGE } from '../lib/sign-in-errors';

// An authorization code can be exchanged only once. React StrictMode runs effects twice, so both
// runs share one exchange per callback URL.
const exchanges = new Map<string, Promise<void>>();

function completeOnce(url: string, complete: (url: string) => Promise<void>): Promise<void> {
  let exchange = exchanges.get(url);
  if (!exchange) {
    exchange = complete(url);
    exchanges.set(url, exchange);
  }
  return exchange;
}

export function CallbackPage() {
  const { completeSignIn, status } = useAuth();
  const navigate = useNavigate();
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let active = true;
    completeOnce(window.location.href, completeSignIn).then(
      () => {
        if (!active) return;
        navigate(consumeIntendedPath() ?? '/dashboard', { replace: true });
      },
      (callbackError: unknown) => {
        if (active) setError(describeSignInError(callbackError));
      },
    );
    return () => {
      active = false;
    };
  }, [completeSignIn, navigate]);

  // Opened again while signed in (a bookmark, Back, a second tab): the code is spent or missing, but
  // there is nothing to sign in to — the dashboard, not a sign-in error (issue 61).
  if (error && status === 'authenticated') return <Navigate to={consumeIntendedPath() ?? '/dashboard'} replace />;
  if (error && status !== 'loading') {
    return (
      <div className="flex min-h-[60vh] items-center justify-center px-4">
        <div role="alert" className="w-full max-w-md rounded-lg bg-white p-8 text-center shadow-sm ring-1 ring-red-200">
          <h1 className="text-xl font-semibold text-gray-900">{SIGN_IN_FAILED_MESSAGE}</h1>
          <p className="mt-2 text-sm text-red-700">{error}</p>
          <Link to="/login" className={`${textLink} mt-6 inline-block`}>
            Back to sign in
          </Link>
        </div>
      </div>
    );
  }

  return (
    <div className="flex min-h-[60vh] flex-col items-center justify-center gap-4 px-4 text-center">
      <Spinner className="h-10 w-10" />
      <h1 className="text-xl font-semibold text-gray-900">Signing you in...</h1>
      <p className="text-gray-600">Please wait while we complete your authentication.</p>
    </div>
  );
}
