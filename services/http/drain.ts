import type { FastifyInstance } from 'fastify';

/**
 * A rolling stop loses no request when the proxy leaves a replica before the replica stops
 * listening. While draining, /readyz answers 503 (the proxy's active health check takes the
 * replica out of rotation) and every answer carries `Connection: close`, so no idle keep-alive
 * connection is left for the proxy to reuse once the replica closes: a request on a connection the
 * server is closing is lost for a POST, which proxies never retry.
 */
export function addDrainHooks(app: FastifyInstance, isDraining: () => boolean): void {
  app.addHook('onRequest', async (request, reply) => {
    if (isDraining() && request.url.split('?')[0] === '/readyz') {
      return reply.code(503).header('cache-control', 'no-store').send({ status: 'draining' });
    }
  });
  app.addHook('onSend', async (_request, reply) => {
    if (isDraining()) reply.header('connection', 'close');
  });
}
