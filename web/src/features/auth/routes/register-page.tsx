import { Link } from 'react-router';
import { primaryButton, textLink } from '@/components/ui/styles';
import { useRuntimeConfig } from '@/lib/runtime-config';
import { AuthCard, AuthErrorMessage } from '../components/auth-card';
import { useSignInPage } from '../hooks/use-sign-in-page';

export function RegisterPage() {
  const { product_name: productName } = useRuntimeConfig();
  const { status, error, providerName, busy, start } = useSignInPage('/dashboard', { signUp: true });

  return (
    <AuthCard productName={productName} title="Create your account" subtitle="Start monetizing your AI prompts today.">
      <AuthErrorMessage message={error} />
      <button
        type="button"
        className={`${primaryButton} w-full`}
        onClick={start}
        disabled={busy || status === 'loading'}
        aria-describedby="register-provider-note"
      >
        {busy ? 'Creating account...' : 'Create Account'}
      </button>
      <p id="register-provider-note" className="mt-3 text-center text-xs text-gray-500">
        Sign-up is handled securely by {providerName}.
      </p>
      <p className="mt-6 text-center text-sm text-gray-600">
        Already have an account?{' '}
        <Link to="/login" className={textLink}>
          Sign in
        </Link>
      </p>
      <p className="mt-4 text-center text-xs text-gray-500">
        By creating an account you agree to our{' '}
        <Link to="/terms" className={textLink}>
          Terms of Service
        </Link>{' '}
        and{' '}
        <Link to="/privacy" className={textLink}>
          Privacy Policy
        </Link>
        .
      </p>
    </AuthCard>
  );
}
