// The document title of every route: "{screen} · {product name}", so tabs, history and screen
// readers tell the screens apart. More specific patterns come first; an unknown path is the
// not-found page.
import { matchPath } from 'react-router';

const ROUTE_TITLES: readonly (readonly [pattern: string, title: string])[] = [
  ['/', 'Home'],
  ['/login', 'Sign In'],
  ['/auth/login', 'Sign In'],
  ['/register', 'Create Account'],
  ['/auth/register', 'Create Account'],
  ['/auth/callback', 'Signing In'],
  ['/api-test', 'API Test Console'],
  ['/terms', 'Terms of Service'],
  ['/privacy', 'Privacy Policy'],
  ['/explore', 'Explore'],
  ['/explore/:slug', '{slug} · Explore'],
  ['/dashboard', 'Dashboard'],
  ['/applications', 'Applications'],
  ['/analytics', 'Global Analytics'],
  ['/applications/create', 'Create Application'],
  ['/applications/:slug/analytics', '{slug} · Analytics'],
  ['/applications/:slug/edit', '{slug} · Prompt Builder'],
  ['/applications/:slug/billing', '{slug} · Billing'],
  ['/applications/:slug', '{slug} · Application'],
  ['/profile', 'Profile Settings'],
  ['/settings/webhooks', 'Webhooks & Alerts'],
  ['/prompt-builder', 'Create New Prompt'],
  ['/money', 'Money'],
  ['/money/statements', 'Statements'],
  ['/prompts', 'Prompt Applications'],
  ['/prompts/:slug', '{slug} · Prompt'],
  ['/workflows', 'Workflow Applications'],
  ['/workflows/:slug', '{slug} · Workflow'],
  ['/billing/success', 'Payment'],
  ['/operator', 'Operator'],
];

export const NOT_FOUND_TITLE = 'Page not found';

/** The title for a path, e.g. "/prompts/haiku" → "haiku · Prompt · Tollbooth". */
export function routeTitle(pathname: string, productName: string): string {
  for (const [pattern, title] of ROUTE_TITLES) {
    const match = matchPath(pattern, pathname);
    if (match) return `${title.replace('{slug}', match.params.slug ?? '')} · ${productName}`;
  }
  return `${NOT_FOUND_TITLE} · ${productName}`;
}
