// The analytics screens load on demand: Recharts is large, and only these two screens draw charts,
// so it stays out of the bundle every other page waits for.
import { lazy, Suspense } from 'react';
import { AnalyticsLoading } from '../components/analytics-states';

const GlobalAnalyticsPage = lazy(() => import('./global-analytics-page').then((module) => ({ default: module.GlobalAnalyticsPage })));
const AppAnalyticsPage = lazy(() => import('./app-analytics-page').then((module) => ({ default: module.AppAnalyticsPage })));

export function GlobalAnalyticsRoute() {
  return (
    <Suspense fallback={<AnalyticsLoading />}>
      <GlobalAnalyticsPage />
    </Suspense>
  );
}

export function AppAnalyticsRoute() {
  return (
    <Suspense fallback={<AnalyticsLoading />}>
      <AppAnalyticsPage />
    </Suspense>
  );
}
