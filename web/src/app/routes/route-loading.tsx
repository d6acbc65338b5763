import { Suspense } from 'react';
import { Outlet } from 'react-router';
import { PageSpinner } from '../../components/ui/spinner';

/**
 * The pages below load on demand: while a page's code is on its way the header stays and the main
 * area shows a spinner that screen readers announce (role="status" with visible text).
 */
export function RouteLoading() {
  return (
    <Suspense fallback={<PageSpinner message="Loading page..." />}>
      <Outlet />
    </Suspense>
  );
}
