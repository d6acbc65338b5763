// What the login and register pages share: remember where the visitor was headed, send an
// already signed-in visitor there straight away, and keep the button busy while the sign-in starts.
import { useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { useAuth } from '@/lib/auth/use-auth';
import { clearIntendedPath, readIntendedPath, rememberIntendedPath } from '../lib/intended-path';

function originFromState(state: unknown): string | null {
  if (typeof state !== 'object' || state === null) return null;
  const from = (state as { from?: unknown }).from;
  return typeof from === 'string' ? from : null;
}

export function useSignInPage(fallbackPath: string, signInOptions?: { signUp?: boolean }) {
  const auth = useAuth();
  const [busy, setBusy] = useState(false);
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

  async function start() {
    setBusy(true);
    // On success the browser leaves for the identity provider, so busy stays on until then.
    const started = await (signInOptions ? auth.signIn(signInOptions) : auth.signIn());
    if (!started) setBusy(false);
  }

  return { ...auth, busy, start };
}
