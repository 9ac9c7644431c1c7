import { hostname } from 'node:os';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { AppError } from '../core/errors.ts';
import { stageClock } from '../core/stage-timings.ts';
import type { RequestGuard } from '../access/guard.ts';
import { registerErrorHandling } from './errors.ts';
import { acceptRawBodies, BODY_LIMIT_BYTES } from './json-body.ts';

export interface HttpAppOptions {
  logLevel: string;
  /** Where logs go (a test passes a stream to read them back). */
  logStream?: NodeJS.WritableStream;
  /** Fields added to every log line besides pino's pid and hostname (a serving thread's number). */
  logBindings?: Record<string, unknown>;
  /** Shorter limits for tests; the defaults suit every role. */
  timeouts?: Partial<HttpTimeouts>;
}

export interface HttpTimeouts {
  /** Whole request, headers and body, must arrive within this (a 1 byte/s POST is cut off): 408. */
  requestMs: number;
  /** Headers must arrive within this (slowloris). */
  headersMs: number;
  /** How often node looks for requests over these limits. */
  checkIntervalMs: number;
}

// Without Caddy in front (the embedded default) nothing else bounds a slow client: node's own
// defaults let a 1 byte/s body hold a connection for minutes. Bodies are at most 64 KiB and
// headers small, so these limits are generous for any real client.
export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { requestMs: 30_000, headersMs: 10_000, checkIntervalMs: 1_000 };

// Privacy (spec 1, 8 rule 1): no component logs query text, bodies or client IPs. Request logging is
// our own one line per response with the route pattern (not the URL), the status and the duration.
export function createHttpApp(options: HttpAppOptions): FastifyInstance {
  const timeouts = { ...DEFAULT_HTTP_TIMEOUTS, ...options.timeouts };
  const app = Fastify({
    requestTimeout: timeouts.requestMs,
    http: {
      requestTimeout: timeouts.requestMs,
      headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs),
      connectionsCheckingInterval: timeouts.checkIntervalMs,
    },
    logger: {
      level: options.logLevel,
      ...(options.logStream ? { stream: options.logStream } : {}),
      ...(options.logBindings ? { base: { pid: process.pid, hostname: hostname(), ...options.logBindings } } : {}),
      serializers: { req: () => ({}), res: () => ({}) },
    },
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: false,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  acceptRawBodies(app);
  registerErrorHandling(app);
  // Callback-style hooks where nothing is awaited: an async hook costs a promise and a microtask
  // on every request (issue #23, README "The per-request CPU").
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const clock = stageClock(); // null unless FUNDUS_STAGE_TIMINGS (benchmark only)
    request.log.info({ method: request.method, route: request.routeOptions.url ?? 'unmatched', status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    clock?.lap('main.logging');
    done();
  });
  return app;
}

export const PROBE_ROUTES = new Set(['/healthz', '/readyz']);

/**
 * Puts the access checks (key -> origin -> budget) in front of every route, before the body is parsed,
 * and answers CORS preflights. Routes listed in `freeRoutes` consume no budget (spec 8 rule 2).
 */
export function guardRoutes(app: FastifyInstance, guard: RequestGuard, freeRoutes: Set<string>): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS') return;
    const route = request.routeOptions.url ?? '';
    // Probes come from orchestrators and proxies under whatever Host they dial (a container name):
    // they reveal nothing, consume nothing, and are never routed publicly (proxy/fundus.caddy).
    if (PROBE_ROUTES.has(route)) return;
    const decision = await guard.admit({ method: request.method, headers: request.headers, consumesBudget: !freeRoutes.has(route), connection: request.raw.socket });
    reply.headers(decision.headers);
  });
  app.options('*', async (request, reply) => {
    if (!request.headers.origin || !request.headers['access-control-request-method']) throw new AppError('ROUTE_NOT_FOUND');
    const headers = await guard.preflight({ method: request.method, headers: request.headers });
    return reply.code(204).headers(headers).send();
  });
}
