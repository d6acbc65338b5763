import { useEffect } from 'react';
import { useLocation } from 'react-router';
import { useRuntimeConfig } from '@/lib/runtime-config';
import { routeTitle } from './route-titles';

/** Keeps document.title in step with the route. */
export function DocumentTitle() {
  const { pathname } = useLocation();
  const { product_name: productName } = useRuntimeConfig();
  useEffect(() => {
    document.title = routeTitle(pathname, productName);
  }, [pathname, productName]);
  return null;
}
