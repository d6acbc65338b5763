export interface NavItem {
  to: string;
  label: string;
}

export const signedInLinks: NavItem[] = [
  { to: '/dashboard', label: 'Dashboard' },
  { to: '/applications', label: 'Applications' },
  { to: '/analytics', label: 'Analytics' },
  { to: '/api-test', label: 'API Test' },
  { to: '/explore', label: 'Explore' },
  // Credits, top-up and statements: where a caller out of credit goes (issue 25).
  { to: '/money', label: 'Money' },
];

/** The public catalog, offered to signed-out visitors too. */
export const exploreLink: NavItem = { to: '/explore', label: 'Explore' };

export const userMenuLinks: NavItem[] = [
  { to: '/profile', label: 'Profile' },
  { to: '/money', label: 'Money' },
  { to: '/analytics', label: 'Analytics' },
];

/** The operator's view, in the user menu of operators only (ADMIN_EMAILS). */
export const operatorLink: NavItem = { to: '/operator', label: 'Operator' };

/** The upper-case first letter of the display name, else of the e-mail. */
export function userInitial(displayName: string | null | undefined, email: string | null | undefined): string {
  const source = displayName?.trim() || email?.trim() || '';
  return source ? source.charAt(0).toUpperCase() : '?';
}
