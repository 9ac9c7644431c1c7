import type { FastifyInstance } from 'fastify';

// A known path asked with a method it does not serve is answered 405 with `Allow` naming the methods
// it does serve (RFC 9110 15.5.6, as FastAPI/Starlette answer), not 404: the client learns that
// the address is right and the method wrong. fastify only knows "no route", so every route is
// recorded as it is added, and the not-found handler asks which methods the path has.

interface KnownRoute {
  pattern: RegExp;
  methods: Set<string>;
}

function patternOf(url: string): RegExp {
  const source = url
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

/** Records the routes of `app` (call before any route is added); returns the lookup. */
export function trackRouteMethods(app: FastifyInstance): (path: string) => string[] {
  const routes = new Map<string, KnownRoute>();
  app.addHook('onRoute', (route) => {
    // Catch-all routes (the CORS preflight on '*') would make every path "known".
    if (route.url.includes('*')) return;
    const known = routes.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set<string>() };
    for (const method of [route.method].flat()) known.methods.add(method.toUpperCase());
    if (known.methods.has('GET')) known.methods.add('HEAD');
    routes.set(route.url, known);
  });
  return (path) => {
    const methods = new Set<string>();
    for (const route of routes.values()) if (route.pattern.test(path)) for (const method of route.methods) methods.add(method);
    return [...methods].sort();
  };
}
