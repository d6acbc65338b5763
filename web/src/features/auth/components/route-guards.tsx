// Guards for protected routes. Anonymous visitors are sent to /login (or to / for the dashboard and
// analytics screens), and the page they asked for is remembered for after sign-in.
import { type ReactNode, useEffect } from 'react';
import { Outlet, useLocation, useNavigate } from 'react-router';
import { PageSpinner } from '@/components/ui/spinner';
import { useAuth } from '@/lib/auth/use-auth';
import { rememberIntendedPath } from '../lib/intended-path';

export const CHECKING_AUTHENTICATION_MESSAGE = 'Checking authentication...';

interface RequireAuthProps {
  /** Where anonymous visitors go: /login for most pages, / for the dashboard and analytics screens. */
  redirectTo?: '/login' | '/';
  /** Without children the guard renders the matched child route. */
  children?: ReactNode;
}

export function RequireAuth({ redirectTo = '/login', children }: RequireAuthProps) {
  const { status } = useAuth();
  const location = useLocation();
  const navigate = useNavigate();
  const origin = `${location.pathname}${location.search}`;

  useEffect(() => {
    if (status !== 'unauthenticated') return;
    rememberIntendedPath(origin);
    navigate(redirectTo, { replace: true, state: { from: origin } });
  }, [status, origin, redirectTo, navigate]);

  if (status === 'authenticated') return children ?? <Outlet />;
  return <PageSpinner message={CHECKING_AUTHENTICATION_MESSAGE} />;
}
