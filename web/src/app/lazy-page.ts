// Route-level code splitting: a page module is fetched the first time its route renders, so the
// landing page's bundle carries only the app shell (docs/decisions/0020-web-delivery.md).
import { type ComponentType, type LazyExoticComponent, lazy } from 'react';

// biome-ignore lint/suspicious/noExplicitAny: React.lazy's own constraint; each page keeps its props type (Module[Name]).
type AnyComponent = ComponentType<any>;

/** React.lazy for a module's named export: `lazyPage(() => import('./x-page'), 'XPage')`. */
export function lazyPage<Module extends Record<Name, AnyComponent>, Name extends string>(
  load: () => Promise<Module>,
  name: Name,
): LazyExoticComponent<Module[Name]> {
  return lazy(() => load().then((module) => ({ default: module[name] })));
}
