// Every route of the spec's route table. Protected pages redirect anonymous visitors to /login;
// the dashboard and analytics screens send them to / instead (spec section 6).
import { Route, Routes } from 'react-router';
import { DashboardPage } from '@/features/app-overview/routes/app-overview-page';
import { AppAnalyticsRoute, GlobalAnalyticsRoute } from '../features/analytics/routes/lazy-analytics-routes';
import { AppDetailPage } from '../features/apps/routes/app-detail-page';
import { CreateAppPage } from '../features/apps/routes/create-app-page';
import { RequireAuth } from '../features/auth/components/route-guards';
import { CallbackPage } from '../features/auth/routes/callback-page';
import { LoginPage } from '../features/auth/routes/login-page';
import { RegisterPage } from '../features/auth/routes/register-page';
import { BillingPage } from '../features/billing/routes/billing-page';
import { BillingSuccessPage } from '../features/billing/routes/billing-success-page';
import { MoneyPage } from '../features/billing/routes/money-page';
import { ExploreAppPage } from '../features/catalog/routes/explore-app-page';
import { ExplorePage } from '../features/catalog/routes/explore-page';
import { ApiTestPage } from '../features/gateway/routes/api-test-page';
import { ApiKeysSection } from '../features/keys/components/api-keys-section';
import { PrivacyPage, TermsPage } from '../features/legal/routes/legal-pages';
import { ProfilePage } from '../features/profile/routes/profile-page';
import { PromptBuilderPage } from '../features/prompts/routes/prompt-builder-page';
import { PromptDetailPage } from '../features/prompts/routes/prompt-detail-page';
import { PromptListPage } from '../features/prompts/routes/prompt-list-page';
import { WorkflowDetailPage } from '../features/workflows/routes/workflow-detail-page';
import { WorkflowListPage } from '../features/workflows/routes/workflow-list-page';
import { DocumentTitle } from './document-title';
import { AppLayout } from './layout/app-layout';
import { LandingRoute } from './routes/landing-route';
import { NotFoundPage } from './routes/not-found-page';

export function AppRoutes() {
  return (
    <>
      <DocumentTitle />
      <Routes>
        <Route element={<AppLayout />}>
          <Route index element={<LandingRoute />} />
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
            <Route path="analytics" element={<GlobalAnalyticsRoute />} />
            <Route path="applications/:slug/analytics" element={<AppAnalyticsRoute />} />
          </Route>

          <Route element={<RequireAuth redirectTo="/login" />}>
            <Route path="profile" element={<ProfilePage keysSection={<ApiKeysSection />} />} />
            <Route path="prompt-builder" element={<PromptBuilderPage mode="create" />} />
            <Route path="applications/create" element={<CreateAppPage />} />
            <Route path="applications/:slug" element={<AppDetailPage />} />
            <Route path="applications/:slug/edit" element={<PromptBuilderPage mode="edit" />} />
            <Route path="applications/:appSlug/billing" element={<BillingPage />} />
            <Route path="money" element={<MoneyPage />} />
            <Route path="prompts" element={<PromptListPage />} />
            <Route path="prompts/:slug" element={<PromptDetailPage />} />
            <Route path="workflows" element={<WorkflowListPage />} />
            <Route path="workflows/:slug" element={<WorkflowDetailPage />} />
            <Route path="billing/success" element={<BillingSuccessPage />} />
          </Route>

          <Route path="*" element={<NotFoundPage />} />
        </Route>
      </Routes>
    </>
  );
}
