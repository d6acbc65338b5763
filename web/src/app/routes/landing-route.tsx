import { useDisplayName } from '@/lib/api/profile/use-display-name';
import { useAuth } from '@/lib/auth/use-auth';
import { LandingPage } from '../../features/landing/routes/landing-page';
import { useRuntimeConfig } from '../../lib/runtime-config';

/** Features do not read each other, so the app hands the landing page the sign-in state and the current display name. */
export function LandingRoute() {
  const { product_name: productName } = useRuntimeConfig();
  const { status } = useAuth();
  const userName = useDisplayName();
  return <LandingPage productName={productName} authStatus={status} userName={userName} />;
}
