import type { FastifyInstance } from 'fastify';

/**
 * A rolling stop loses no request when the proxy leaves a replica before the replica stops
 * listening. While draining, /readyz answers 503 (the proxy's active health check takes the
 * replica out of rotation) and every answer carries `Connection: close`, so no idle keep-alive
 * connection is left for the proxy to reuse once the replica closes: a request on a connection the
 * server is closing is lost for a POST, which proxies never retry.
 */
export function addDrainHooks(app: FastifyInstance, isDraining: () => boolean): void {
  // Callback-style hooks: they run on every request, and an async hook costs a promise and a
  // microtask each (issue #23, README "The per-request CPU").
  app.addHook('onRequest', (request, reply, done) => {
    if (isDraining() && request.url.split('?')[0] === '/readyz') {
      reply.code(503).header('cache-control', 'no-store').send({ status: 'draining' });
      return; // answered: done() would run the route too
    }
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (isDraining()) reply.header('connection', 'close');
    done(null, payload);
  });
}
