import type { FastifyRequest } from 'fastify';

// The public origin that documents name (OpenAPI `servers`, /docs, MCP instructions): the configured
// external URL, else the origin the request was addressed to — never the bind address, which is
// 0.0.0.0 in a container. The Host header has passed the host allow-list by then (access/hosts.ts),
// so only names the operator allowed end up in a document; what is built per origin is kept (a few).

const MAX_ORIGINS = 16;

export function perPublicOrigin<T>(externalUrl: string | null, build: (origin: string) => T): (request: FastifyRequest) => T {
  if (externalUrl) {
    const built = build(externalUrl);
    return () => built;
  }
  const cache = new Map<string, T>();
  return (request) => {
    const origin = `${request.protocol}://${request.host}`;
    let built = cache.get(origin);
    if (built === undefined) {
      if (cache.size >= MAX_ORIGINS) cache.delete(cache.keys().next().value as string);
      built = build(origin);
      cache.set(origin, built);
    }
    return built;
  };
}
