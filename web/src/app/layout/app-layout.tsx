import { Suspense, useId, useRef, useState } from 'react';
import { Link, NavLink, Outlet, useLocation } from 'react-router';
import { useProfile } from '@/lib/api/profile/get-profile';
import { useAuth } from '@/lib/auth/use-auth';
import { Spinner } from '../../components/ui/spinner';
import { primaryButton } from '../../components/ui/styles';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { lazyPage } from '../lazy-page';
import { exploreLink, signedInLinks, userInitial } from './nav-items';
import { useDismiss } from './use-dismiss';

// Neither menu is part of the landing page's first bundle: the account menu is for signed-in users
// and the mobile menu opens on a tap (docs/decisions/0020-web-delivery.md).
const UserMenu = lazyPage(() => import('./user-menu'), 'UserMenu');
const MobileMenu = lazyPage(() => import('./mobile-menu'), 'MobileMenu');
/** Holds the account button's place while its code loads, so the header does not shift. */
const userMenuPlaceholder = <span className="block h-9 w-9 rounded-full bg-indigo-100" aria-hidden="true" />;

const desktopLinkClass = ({ isActive }: { isActive: boolean }) =>
  `rounded-md px-3 py-2 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 ${
    isActive ? 'text-indigo-700' : 'text-gray-600 hover:text-gray-900'
  }`;

export function AppLayout() {
  const { product_name: productName } = useRuntimeConfig();
  const { status, user, signOut } = useAuth();
  // Loading the profile also creates the account's user row on the first visit after sign-up.
  const profile = useProfile({ enabled: status === 'authenticated' });
  const { pathname } = useLocation();
  const header = useRef<HTMLElement>(null);
  const mobileMenuId = useId();
  const [mobileOpenOn, setMobileOpenOn] = useState<string | null>(null);
  const mobileOpen = mobileOpenOn === pathname;
  const closeMobile = () => setMobileOpenOn(null);

  const menuButton = useRef<HTMLButtonElement>(null);

  useDismiss(mobileOpen, header, (reason) => {
    closeMobile();
    if (reason === 'escape') menuButton.current?.focus();
  });

  const displayName = profile.data?.user.display_name || profile.data?.creator?.display_name || user?.name || null;
  const email = profile.data?.user.email || user?.email || null;
  const initial = userInitial(displayName, email);
  const userLabel = displayName || email || 'Account';

  function handleSignOut() {
    closeMobile();
    void signOut();
  }

  return (
    <div className="flex min-h-screen flex-col">
      <a
        href="#main-content"
        className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded-md focus:bg-white focus:px-3 focus:py-2 focus:shadow"
      >
        Skip to content
      </a>
      <header ref={header} className="sticky top-0 z-10 border-b border-gray-200 bg-white/95 backdrop-blur">
        <div className="mx-auto flex h-16 max-w-7xl items-center justify-between px-4 sm:px-6 lg:px-8">
          <div className="flex items-center gap-8">
            <Link
              to="/"
              className="rounded-sm text-xl font-extrabold tracking-tight text-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-4 focus-visible:outline-indigo-600"
            >
              {productName}
            </Link>
            {status === 'authenticated' ? (
              <nav aria-label="Main" className="hidden items-center gap-1 md:flex">
                {signedInLinks.map((link) => (
                  <NavLink key={link.to} to={link.to} className={desktopLinkClass}>
                    {link.label}
                  </NavLink>
                ))}
              </nav>
            ) : null}
          </div>

          <div className="flex items-center gap-3">
            {status === 'loading' ? <Spinner label="Loading authentication" /> : null}
            {status === 'authenticated' ? (
              <div className="hidden md:block">
                <Suspense fallback={userMenuPlaceholder}>
                  <UserMenu initial={initial} label={userLabel} email={email} onSignOut={handleSignOut} />
                </Suspense>
              </div>
            ) : null}
            {status === 'unauthenticated' ? (
              <div className="hidden items-center gap-3 md:flex">
                <NavLink to={exploreLink.to} className={desktopLinkClass}>
                  {exploreLink.label}
                </NavLink>
                <Link to="/login" className={desktopLinkClass({ isActive: pathname === '/login' })}>
                  Sign in
                </Link>
                <Link to="/register" className={primaryButton}>
                  Get Started
                </Link>
              </div>
            ) : null}
            {status !== 'loading' ? (
              <button
                ref={menuButton}
                type="button"
                className="inline-flex items-center justify-center rounded-md p-2 text-gray-600 hover:bg-gray-100 hover:text-gray-900 focus-visible:outline-2 focus-visible:outline-indigo-600 md:hidden"
                aria-controls={mobileMenuId}
                aria-expanded={mobileOpen}
                aria-haspopup="true"
                aria-label={mobileOpen ? 'Close main menu' : 'Open main menu'}
                onClick={() => setMobileOpenOn(mobileOpen ? null : pathname)}
              >
                <svg className="h-6 w-6" fill="none" viewBox="0 0 24 24" stroke="currentColor" strokeWidth="2" aria-hidden="true">
                  {mobileOpen ? (
                    <path strokeLinecap="round" strokeLinejoin="round" d="M6 18L18 6M6 6l12 12" />
                  ) : (
                    <path strokeLinecap="round" strokeLinejoin="round" d="M4 6h16M4 12h16M4 18h16" />
                  )}
                </svg>
              </button>
            ) : null}
          </div>
        </div>
        {mobileOpen ? (
          <Suspense
            fallback={
              <div className="px-4 py-3">
                <Spinner label="Loading menu" />
              </div>
            }
          >
            <MobileMenu
              id={mobileMenuId}
              authStatus={status}
              links={signedInLinks}
              userLabel={userLabel}
              email={email}
              initial={initial}
              onNavigate={closeMobile}
              onSignOut={handleSignOut}
            />
          </Suspense>
        ) : null}
      </header>

      <main id="main-content" className="flex-1">
        <Outlet />
      </main>
    </div>
  );
}
