import { Link, NavLink } from 'react-router';
import { useOperatorAccess } from '../../features/operator/api/get-operator-access';
import { exploreLink, type NavItem, operatorLink, userMenuLinks } from './nav-items';

interface MobileMenuProps {
  id: string;
  authStatus: 'loading' | 'authenticated' | 'unauthenticated';
  links: NavItem[];
  userLabel: string | null;
  email: string | null;
  initial: string;
  onNavigate: () => void;
  onSignOut: () => void;
}

const linkClass = ({ isActive }: { isActive: boolean }) =>
  `block rounded-md px-3 py-2 text-base font-medium focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-indigo-600 ${
    isActive ? 'bg-indigo-50 text-indigo-700' : 'text-gray-700 hover:bg-gray-50 hover:text-gray-900'
  }`;

/** The navigation below the md breakpoint; it mirrors the desktop bar and the user menu. */
export function MobileMenu({ id, authStatus, links, userLabel, email, initial, onNavigate, onSignOut }: MobileMenuProps) {
  // Operators (ADMIN_EMAILS) also get the operator page; for anyone else the server answers 404.
  const isOperator = useOperatorAccess({ enabled: authStatus === 'authenticated' }).data === true;
  return (
    <div id={id} className="border-t border-gray-200 bg-white md:hidden">
      {authStatus === 'authenticated' ? (
        <>
          <nav aria-label="Main (mobile)" className="space-y-1 px-2 py-3">
            {links.map((link) => (
              <NavLink key={link.to} to={link.to} className={linkClass} onClick={onNavigate}>
                {link.label}
              </NavLink>
            ))}
          </nav>
          <div className="border-t border-gray-200 px-2 py-3">
            <div className="flex items-center gap-3 px-3 pb-3">
              <span className="flex h-9 w-9 items-center justify-center rounded-full bg-indigo-600 text-sm font-semibold text-white" aria-hidden="true">
                {initial}
              </span>
              <div className="min-w-0">
                <p className="truncate text-sm font-medium text-gray-900">{userLabel}</p>
                {email && email !== userLabel ? <p className="truncate text-xs text-gray-500">{email}</p> : null}
              </div>
            </div>
            {(isOperator ? [...userMenuLinks, operatorLink] : userMenuLinks).map((link) => (
              <NavLink key={link.label} to={link.to} className={linkClass} onClick={onNavigate}>
                {link.label}
              </NavLink>
            ))}
            <button
              type="button"
              onClick={onSignOut}
              className="block w-full rounded-md px-3 py-2 text-left text-base font-medium text-gray-700 hover:bg-gray-50 hover:text-gray-900 focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-indigo-600"
            >
              Sign out
            </button>
          </div>
        </>
      ) : authStatus === 'unauthenticated' ? (
        <div className="space-y-1 px-2 py-3">
          <NavLink to={exploreLink.to} className={linkClass} onClick={onNavigate}>
            {exploreLink.label}
          </NavLink>
          <Link to="/login" className={linkClass({ isActive: false })} onClick={onNavigate}>
            Sign in
          </Link>
          <Link to="/register" className={linkClass({ isActive: false })} onClick={onNavigate}>
            Get Started
          </Link>
        </div>
      ) : null}
    </div>
  );
}
