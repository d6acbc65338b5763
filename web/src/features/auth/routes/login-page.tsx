import { Link } from 'react-router';
import { primaryButton, textLink } from '@/components/ui/styles';
import { useRuntimeConfig } from '@/lib/runtime-config';
import { AuthCard, AuthErrorMessage } from '../components/auth-card';
import { useSignInPage } from '../hooks/use-sign-in-page';

export function LoginPage() {
  const { product_name: productName } = useRuntimeConfig();
  const { status, error, providerName, busy, start } = useSignInPage('/');

  return (
    <AuthCard productName={productName} title="Sign in to your account">
      <AuthErrorMessage message={error} />
      <button type="button" className={`${primaryButton} w-full`} onClick={start} disabled={busy || status === 'loading'}>
        {busy ? 'Signing in...' : `Sign in with ${providerName}`}
      </button>
      <p className="mt-6 text-center text-sm text-gray-600">
        New to {productName}?{' '}
        <Link to="/register" className={textLink}>
          Create new account
        </Link>
      </p>
    </AuthCard>
  );
}
