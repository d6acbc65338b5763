// Route-level code splitting: a page module is fetched the first time its route renders, or
// earlier when preload() is called (main.tsx preloads the page of the address the app opens on),
// so the landing page's bundle carries only the app shell (docs/decisions/0020-web-delivery.md).
import { type ComponentProps, type ComponentType, createElement, type FunctionComponent, lazy } from 'react';

// biome-ignore lint/suspicious/noExplicitAny: React.lazy's own constraint; each page keeps its props type (Module[Name]).
type AnyComponent = ComponentType<any>;

/** A page that loads on demand, and can be asked to start loading before it renders. */
export type LazyPage<Component extends AnyComponent> = FunctionComponent<ComponentProps<Component>> & {
  /** Starts fetching the page's module (once); resolves when it is there. */
  preload(): Promise<unknown>;
};

/**
 * React.lazy for a module's named export: `lazyPage(() => import('./x-page'), 'XPage')`. Until the
 * module is there the page suspends (the nearest Suspense boundary shows its fallback); once it is,
 * the page renders at once, without suspending first.
 */
export function lazyPage<Module extends Record<Name, AnyComponent>, Name extends string>(load: () => Promise<Module>, name: Name): LazyPage<Module[Name]> {
  let loaded: Module[Name] | undefined;
  let loading: Promise<Module[Name]> | undefined;
  const preload = () => {
    loading ??= load().then((module) => {
      loaded = module[name];
      return loaded;
    });
    return loading;
  };
  // Resolves after `loaded` is set, so this component is only ever rendered while it suspends:
  // a page never switches from it to the loaded component once mounted (no remount, no lost state).
  const Suspending = lazy(() => preload().then((component) => ({ default: component })));
  function Page(props: ComponentProps<Module[Name]>) {
    return createElement(loaded ?? Suspending, props);
  }
  Page.displayName = `LazyPage(${name})`;
  Page.preload = preload;
  return Page;
}
