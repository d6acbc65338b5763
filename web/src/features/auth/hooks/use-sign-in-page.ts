// What the login and register pages share: remember where the visitor was headed, and send an
// already signed-in visitor there straight away.
import { useEffect, useRef } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { useAuth } from '@/lib/auth/use-auth';
import { clearIntendedPath, readIntendedPath, rememberIntendedPath } from '../lib/intended-path';

function originFromState(state: unknown): string | null {
  if (typeof state !== 'object' || state === null) return null;
  const from = (state as { from?: unknown }).from;
  return typeof from === 'string' ? from : null;
}

export function useSignInPage(fallbackPath: string) {
  const auth = useAuth();
  const location = useLocation();
  const navigate = useNavigate();
  const origin = originFromState(location.state);
  const redirected = useRef(false);

  useEffect(() => {
    if (origin) rememberIntendedPath(origin);
  }, [origin]);

  useEffect(() => {
    if (auth.status !== 'authenticated' || redirected.current) return;
    redirected.current = true;
    const target = readIntendedPath() ?? fallbackPath;
    clearIntendedPath();
    navigate(target, { replace: true });
  }, [auth.status, fallbackPath, navigate]);

  return auth;
}
