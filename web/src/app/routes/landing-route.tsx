import { useAuth } from '@/lib/auth/use-auth';
import { LandingPage } from '../../features/landing/routes/landing-page';
import { useRuntimeConfig } from '../../lib/runtime-config';

/** Features do not read each other, so the app hands the landing page the sign-in state. */
export function LandingRoute() {
  const { product_name: productName } = useRuntimeConfig();
  const { status, user } = useAuth();
  return <LandingPage productName={productName} authStatus={status} userName={user?.name || user?.email} />;
}
