// Every route of the spec's route table. Protected pages redirect anonymous visitors to /login;
// the dashboard and analytics screens send them to / instead (spec section 6).
import { isValidElement, type ReactNode } from 'react';
import { createRoutesFromElements, matchRoutes, Route, Routes } from 'react-router';
import { RequireAuth } from '../features/auth/components/route-guards';
import { DocumentTitle } from './document-title';
import { AppLayout } from './layout/app-layout';
import { type LazyPage, lazyPage } from './lazy-page';
import { LandingRoute } from './routes/landing-route';
import { NotFoundPage } from './routes/not-found-page';
import { RouteLoading } from './routes/route-loading';

// The landing page and the not-found page are in the first bundle; every other page is its own
// chunk, fetched when its route is first shown. Recharts comes with the two
// analytics pages only, Monaco later still, when a prompt editor first shows (prompt-editor.tsx).
// See docs/decisions/0020-web-delivery.md.
const GlobalAnalyticsPage = lazyPage(() => import('../features/analytics/routes/global-analytics-page'), 'GlobalAnalyticsPage');
const AppAnalyticsPage = lazyPage(() => import('../features/analytics/routes/app-analytics-page'), 'AppAnalyticsPage');
const DashboardPage = lazyPage(() => import('@/features/app-overview/routes/app-overview-page'), 'DashboardPage');
const AppDetailPage = lazyPage(() => import('../features/apps/routes/app-detail-page'), 'AppDetailPage');
const CreateAppPage = lazyPage(() => import('../features/apps/routes/create-app-page'), 'CreateAppPage');
const CallbackPage = lazyPage(() => import('../features/auth/routes/callback-page'), 'CallbackPage');
const LoginPage = lazyPage(() => import('../features/auth/routes/login-page'), 'LoginPage');
const RegisterPage = lazyPage(() => import('../features/auth/routes/register-page'), 'RegisterPage');
const BillingPage = lazyPage(() => import('../features/billing/routes/billing-page'), 'BillingPage');
const BillingSuccessPage = lazyPage(() => import('../features/billing/routes/billing-success-page'), 'BillingSuccessPage');
const MoneyPage = lazyPage(() => import('../features/billing/routes/money-page'), 'MoneyPage');
const StatementsPage = lazyPage(() => import('../features/statements/routes/statements-page'), 'StatementsPage');
const ExploreAppPage = lazyPage(() => import('../features/catalog/routes/explore-app-page'), 'ExploreAppPage');
const ExplorePage = lazyPage(() => import('../features/catalog/routes/explore-page'), 'ExplorePage');
const ApiTestPage = lazyPage(() => import('../features/gateway/routes/api-test-page'), 'ApiTestPage');
const PrivacyPage = lazyPage(() => import('../features/legal/routes/legal-pages'), 'PrivacyPage');
const TermsPage = lazyPage(() => import('../features/legal/routes/legal-pages'), 'TermsPage');
const ProfilePage = lazyPage(() => import('../features/profile/routes/profile-page'), 'ProfilePage');
const ApiKeysSection = lazyPage(() => import('../features/keys/components/api-keys-section'), 'ApiKeysSection');
const OperatorPage = lazyPage(() => import('../features/operator/routes/operator-page'), 'OperatorPage');
const PromptBuilderPage = lazyPage(() => import('../features/prompts/routes/prompt-builder-page'), 'PromptBuilderPage');
const PromptDetailPage = lazyPage(() => import('../features/prompts/routes/prompt-detail-page'), 'PromptDetailPage');
const PromptListPage = lazyPage(() => import('../features/prompts/routes/prompt-list-page'), 'PromptListPage');
const WorkflowDetailPage = lazyPage(() => import('../features/workflows/routes/workflow-detail-page'), 'WorkflowDetailPage');
const WebhooksPage = lazyPage(() => import('../features/webhooks/routes/webhooks-page'), 'WebhooksPage');
const WorkflowListPage = lazyPage(() => import('../features/workflows/routes/workflow-list-page'), 'WorkflowListPage');

const routes = (
  <Route element={<AppLayout />}>
    <Route index element={<LandingRoute />} />
    <Route element={<RouteLoading />}>
      <Route path="login" element={<LoginPage />} />
      <Route path="auth/login" element={<LoginPage />} />
      <Route path="register" element={<RegisterPage />} />
      <Route path="auth/register" element={<RegisterPage />} />
      <Route path="auth/callback" element={<CallbackPage />} />
      <Route path="api-test" element={<ApiTestPage />} />
      <Route path="explore" element={<ExplorePage />} />
      <Route path="explore/:slug" element={<ExploreAppPage />} />
      <Route path="terms" element={<TermsPage />} />
      <Route path="privacy" element={<PrivacyPage />} />

      <Route element={<RequireAuth redirectTo="/" />}>
        <Route path="dashboard" element={<DashboardPage />} />
        <Route path="applications" element={<DashboardPage />} />
        <Route path="analytics" element={<GlobalAnalyticsPage />} />
        <Route path="applications/:slug/analytics" element={<AppAnalyticsPage />} />
      </Route>

      <Route element={<RequireAuth redirectTo="/login" />}>
        <Route path="profile" element={<ProfilePage keysSection={<ApiKeysSection />} />} />
        <Route path="settings/webhooks" element={<WebhooksPage />} />
        <Route path="prompt-builder" element={<PromptBuilderPage mode="create" />} />
        <Route path="applications/create" element={<CreateAppPage />} />
        <Route path="applications/:slug" element={<AppDetailPage />} />
        <Route path="applications/:slug/edit" element={<PromptBuilderPage mode="edit" />} />
        <Route path="applications/:appSlug/billing" element={<BillingPage />} />
        <Route path="money" element={<MoneyPage />} />
        <Route path="money/statements" element={<StatementsPage />} />
        <Route path="prompts" element={<PromptListPage />} />
        <Route path="prompts/:slug" element={<PromptDetailPage />} />
        <Route path="workflows" element={<WorkflowListPage />} />
        <Route path="workflows/:slug" element={<WorkflowDetailPage />} />
        <Route path="billing/success" element={<BillingSuccessPage />} />
        {/* Operators only (ADMIN_EMAILS); anyone else gets the not-found page, as the API answers 404. */}
        <Route path="operator" element={<OperatorPage notFound={<NotFoundPage />} />} />
      </Route>
    </Route>
    <Route path="*" element={<NotFoundPage />} />
  </Route>
);

export function AppRoutes() {
  return (
    <>
      <DocumentTitle />
      <Routes>{routes}</Routes>
    </>
  );
}

/** The component of a route's element when it is a lazy page. */
function lazyPageOf(element: ReactNode): Pick<LazyPage<never>, 'preload'> | null {
  if (!isValidElement(element) || typeof element.type !== 'function' || !('preload' in element.type)) return null;
  return element.type as Pick<LazyPage<never>, 'preload'>;
}

/**
 * Starts loading the page the app opens on (a reload or a link to /dashboard), so its code arrives
 * with the settings instead of after them and the sign-in state; resolves when it is there (at once
 * for the landing and not-found pages, which are in the first bundle). Anonymous visitors of a
 * protected page fetch its code for nothing; that page is then never shown (its guard redirects).
 */
export function preloadPageFor(pathname: string): Promise<unknown> {
  const pages = (matchRoutes(createRoutesFromElements(routes), pathname) ?? []).map((match) => lazyPageOf(match.route.element)?.preload());
  return Promise.all(pages);
}
