// A path that exists but not for the request's method answers 405 with Allow (RFC 9110 §15.5.6),
// not 404. Fastify's router only says "no route", so this keeps its own table of every route's
// path pattern and methods (filled by an onRoute hook) and asks it from the not-found handler.
import type { FastifyInstance } from 'fastify';

interface RoutePattern {
  pattern: RegExp;
  methods: Set<string>;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A Fastify path (":param", "*") as a regular expression over a path without its trailing slash. */
function compile(url: string): RegExp {
  const trimmed = url.length > 1 ? url.replace(/\/+$/, '') : url;
  let source = '';
  for (const part of trimmed.split(/(:[A-Za-z0-9_]+(?:\([^)]*\))?|\*)/)) {
    if (part === '*') source += '.*';
    else if (part.startsWith(':')) source += '[^/]+';
    else source += escapeRegExp(part);
  }
  return new RegExp(`^${source}$`);
}

export interface RouteTable {
  /** The methods the path answers to (HEAD with GET), or null when no route has this path. */
  allowedMethods(pathname: string): string[] | null;
}

/** Registers the onRoute hook; call before any route is added. */
export function registerRouteTable(app: FastifyInstance): RouteTable {
  const routes = new Map<string, RoutePattern>();
  app.addHook('onRoute', (route) => {
    // OPTIONS routes are CORS preflights over wildcards (cors.ts), not resources of their own.
    const methods = (Array.isArray(route.method) ? route.method : [route.method])
      .map((method) => method.toUpperCase())
      .filter((method) => method !== 'OPTIONS');
    if (methods.length === 0) return;
    const trimmed = route.url.length > 1 ? route.url.replace(/\/+$/, '') : route.url;
    const entry = routes.get(trimmed) ?? { pattern: compile(route.url), methods: new Set<string>() };
    for (const method of methods) entry.methods.add(method);
    routes.set(trimmed, entry);
  });
  return {
    allowedMethods(pathname) {
      const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
      const methods = new Set<string>();
      for (const route of routes.values()) {
        if (route.pattern.test(path)) for (const method of route.methods) methods.add(method);
      }
      if (methods.size === 0) return null;
      if (methods.has('GET')) methods.add('HEAD');
      return [...methods].sort();
    },
  };
}
