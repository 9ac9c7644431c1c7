import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { adaptCaddyfile, assertCaddyInstalled, PROXY_DIR, runCaddy } from '../helpers/caddy.ts';

// proxy/Caddyfile and proxy/Caddyfile.local, validated and adapted by the real caddy (Debian 2.6).

const PUBLIC_ENV = {
  FUNDUS_PUBLIC_HOST: 'search.example.org',
  ACME_EMAIL: 'ops@example.org',
  GATEWAY_UPSTREAMS: 'gateway-1:8082 gateway-2:8082 gateway-3:8082',
  WEB_UPSTREAMS: 'web-1:8080 web-2:8080',
};
const LOCAL_ENV = {
  CADDY_HTTP_PORT: '18080',
  CADDY_HTTPS_PORT: '18443',
  GATEWAY_UPSTREAMS: '127.0.0.1:18082 127.0.0.1:18083 127.0.0.1:18084',
  WEB_UPSTREAMS: '127.0.0.1:18090',
};

type Json = Record<string, any>;

/** The server that proxies (the HTTPS site); Caddyfile.local adds a plain-HTTP redirect server. */
function mainServer(config: Json): Json {
  const servers = Object.values(config.apps.http.servers) as Json[];
  const found = servers.find((server) => JSON.stringify(server.routes).includes('"reverse_proxy"'));
  if (!found) throw new Error('no server with a reverse_proxy');
  return found;
}

/** Every reverse_proxy handler with the path matcher of the route it sits in. */
function proxies(config: Json): { paths: string[] | null; dials: string[]; handler: Json }[] {
  const found: { paths: string[] | null; dials: string[]; handler: Json }[] = [];
  const walk = (routes: Json[], paths: string[] | null) => {
    for (const route of routes ?? []) {
      const own = route.match?.find((m: Json) => m.path)?.path ?? paths;
      for (const handler of route.handle ?? []) {
        if (handler.handler === 'reverse_proxy') found.push({ paths: own, dials: handler.upstreams.map((u: Json) => u.dial), handler });
        if (handler.handler === 'subroute') walk(handler.routes, own);
      }
    }
  };
  walk(mainServer(config).routes, null);
  return found;
}

function staticResponses(config: Json): { paths: string[]; status: number }[] {
  const found: { paths: string[]; status: number }[] = [];
  const walk = (routes: Json[], paths: string[]) => {
    for (const route of routes ?? []) {
      const own = route.match?.find((m: Json) => m.path)?.path ?? paths;
      for (const handler of route.handle ?? []) {
        if (handler.handler === 'static_response') found.push({ paths: own, status: handler.status_code });
        if (handler.handler === 'subroute') walk(handler.routes, own);
      }
    }
  };
  walk(mainServer(config).routes, []);
  return found;
}

function headerHandler(config: Json): Json[] {
  return JSON.stringify(config).match(/"handler":"headers"/g) ? collect(config, (node) => node.handler === 'headers') : [];
}

function collect(node: unknown, keep: (node: Json) => boolean, out: Json[] = []): Json[] {
  if (Array.isArray(node)) for (const item of node) collect(item, keep, out);
  else if (node && typeof node === 'object') {
    if (keep(node as Json)) out.push(node as Json);
    for (const value of Object.values(node)) collect(value, keep, out);
  }
  return out;
}

describe('proxy Caddyfiles (validated by the installed caddy)', () => {
  beforeAll(() => {
    assertCaddyInstalled();
  });

  it('validates proxy/Caddyfile (public name, automatic HTTPS)', () => {
    const result = runCaddy(['validate', '--adapter', 'caddyfile', '--config', resolve(PROXY_DIR, 'Caddyfile')], PUBLIC_ENV);
    expect(result.stderr + result.stdout).toContain('Valid configuration');
    expect(result.status).toBe(0);
  });

  it('validates proxy/Caddyfile.local (tls internal, loopback)', () => {
    const result = runCaddy(['validate', '--adapter', 'caddyfile', '--config', resolve(PROXY_DIR, 'Caddyfile.local')], LOCAL_ENV);
    expect(result.stderr + result.stdout).toContain('Valid configuration');
    expect(result.status).toBe(0);
  });

  for (const [name, env] of [['Caddyfile', PUBLIC_ENV], ['Caddyfile.local', LOCAL_ENV]] as const) {
    describe(name, () => {
      let config: Json;
      beforeAll(() => {
        config = adaptCaddyfile(resolve(PROXY_DIR, name), env);
      });

      it('sends /v1/*, /mcp, /openapi.json and /docs to the gateway replicas', () => {
        const gateway = proxies(config).find((p) => p.paths?.includes('/v1/*'));
        expect(gateway?.paths).toEqual(expect.arrayContaining(['/v1/*', '/mcp', '/mcp/*', '/openapi.json', '/docs']));
        expect(gateway?.dials).toEqual(env.GATEWAY_UPSTREAMS.split(' '));
      });

      it('sends everything else (/api/*, the search page, its files) to the front-end replicas', () => {
        const web = proxies(config).filter((p) => p.paths === null);
        expect(web).toHaveLength(1);
        expect(web[0].dials).toEqual(env.WEB_UPSTREAMS.split(' '));
      });

      it('never routes the admin panel or the probes', () => {
        const blocked = staticResponses(config).find((r) => r.paths.includes('/admin'));
        expect(blocked).toMatchObject({ status: 404 });
        expect(blocked?.paths).toEqual(expect.arrayContaining(['/admin', '/admin/*', '/healthz', '/readyz']));
        const dials = proxies(config).flatMap((p) => p.dials).join(' ');
        expect(dials).not.toMatch(/admin|:8081\b/);
      });

      it('balances with active /readyz checks and retries bounded by time only', () => {
        for (const proxy of proxies(config)) {
          expect(proxy.handler.health_checks.active).toMatchObject({ uri: '/readyz', expect_status: 200 });
          // No passive failure counting: a lost DNS answer must not take every replica out for seconds.
          expect(proxy.handler.health_checks.passive).toBeUndefined();
          // No retry count: Caddy 2.6 stops at whichever limit comes first, and 3 retries at 100 ms
          // end long before a health interval (3 s) could bring a replica back.
          expect(proxy.handler.load_balancing).toMatchObject({ try_duration: 5e9, try_interval: 1e8 });
          expect(proxy.handler.load_balancing.retries).toBeUndefined();
          // No retry_match: Caddy 2.6 then retries after a delivered request only for GET.
          expect(proxy.handler.load_balancing.retry_match).toBeUndefined();
        }
      });

      it('takes a draining replica out within one health interval, and drops idle upstream connections before Node does', () => {
        for (const proxy of proxies(config)) {
          // Checks every 3 s with a 2 s timeout: the kit drains for 8 s (FUNDUS_DRAIN_MS), more than both.
          expect(proxy.handler.health_checks.active).toMatchObject({ interval: 3e9, timeout: 2e9 });
          // Shorter than Node's keep-alive timeout (Fastify: 72 s), so Caddy never reuses a connection the replica is closing.
          expect(proxy.handler.transport.keep_alive.idle_timeout).toBe(30e9);
        }
      });

      it('keeps idle connections to every replica and never asks a replica to compress for Caddy itself', () => {
        for (const proxy of proxies(config)) {
          // Without it, setting keep_alive leaves Go's 2 idle connections per upstream (issue 23).
          expect(proxy.handler.transport.keep_alive.max_idle_conns_per_host).toBe(64);
          // Go's transport would add Accept-Encoding: gzip and unpack the answer again.
          expect(proxy.handler.transport.compression).toBe(false);
        }
      });

      it('limits request bodies, compresses, and sets safe headers', () => {
        const text = JSON.stringify(config);
        expect(text).toContain('"handler":"request_body","max_size":64000');
        const expressions = collect(config, (node) => typeof node.expression === 'string').map((node) => node.expression as string);
        expect(expressions).toContain('{http.request.header.Content-Length}.size() > 0 && int({http.request.header.Content-Length}) > 65536');
        expect(text).toMatch(/"status_code":413/);
        expect(text).toMatch(/"handler":"encode"[^}]*|"encodings":\{"gzip":\{\},"zstd":\{\}\}/);
        const headers = headerHandler(config).flatMap((h) => Object.keys(h.response?.set ?? {}));
        expect(headers).toEqual(expect.arrayContaining(['X-Content-Type-Options', 'Referrer-Policy', 'X-Frame-Options']));
      });

      it('sets server timeouts', () => {
        expect(mainServer(config)).toMatchObject({ read_timeout: 10e9, read_header_timeout: 5e9, write_timeout: 60e9, idle_timeout: 120e9 });
      });

      it('writes no access log, and drops client address, URI and headers from its error log', () => {
        expect(mainServer(config).logs).toBeUndefined();
        const fields = config.logging.logs.default.encoder.fields;
        for (const field of ['request>remote_ip', 'request>client_ip', 'request>uri', 'request>headers']) expect(fields[field]).toEqual({ filter: 'delete' });
      });
    });
  }

  it('public: HSTS on the public name, automatic certificates (no tls internal)', () => {
    const config = adaptCaddyfile(resolve(PROXY_DIR, 'Caddyfile'), PUBLIC_ENV);
    const hsts = headerHandler(config).find((h) => h.response?.set?.['Strict-Transport-Security']);
    expect(hsts?.response.set['Strict-Transport-Security'][0]).toMatch(/max-age=\d{8}/);
    expect(mainServer(config).routes[0].match[0].host).toEqual(['search.example.org']);
    expect(JSON.stringify(config.apps.tls ?? {})).not.toContain('"internal"');
    expect(mainServer(config).listen).toEqual([':443']);
  });

  it('local: tls internal, loopback only, ports from the environment, no HSTS for localhost', () => {
    const config = adaptCaddyfile(resolve(PROXY_DIR, 'Caddyfile.local'), LOCAL_ENV);
    expect(JSON.stringify(config.apps.tls)).toContain('"module":"internal"');
    expect(mainServer(config).listen).toEqual(['127.0.0.1:18443']);
    expect(config.apps.http).toMatchObject({ http_port: 18080, https_port: 18443 });
    expect(JSON.stringify(config)).not.toContain('Strict-Transport-Security');
    expect(config.admin).toEqual({ disabled: true });
    const redirect = (Object.values(config.apps.http.servers) as Json[]).find((server) => server.listen.includes('127.0.0.1:18080'));
    expect(JSON.stringify(redirect?.routes)).toContain('https://localhost:18443{http.request.uri}');
  });

  it('public with FUNDUS_TLS=internal: Caddy’s local CA for the public name (a trial deployment), nothing else changes', () => {
    const config = adaptCaddyfile(resolve(PROXY_DIR, 'Caddyfile'), { ...PUBLIC_ENV, FUNDUS_PUBLIC_HOST: 'localhost', FUNDUS_TLS: 'internal' });
    expect(config.apps.tls.automation.policies).toEqual([{ subjects: ['localhost'], issuers: [{ module: 'internal' }] }]);
    expect(mainServer(config).listen).toEqual([':443']);
    const acme = adaptCaddyfile(resolve(PROXY_DIR, 'Caddyfile'), { ...PUBLIC_ENV, FUNDUS_TLS: 'acme' });
    expect(acme.apps.tls.automation.policies[0].issuers.map((i: Json) => i.module)).toEqual(['acme', 'zerossl']);
    expect(acme.apps.tls.automation.policies[0].issuers[0].email).toBe('ops@example.org');
  });

  it('refuses to start without a public name rather than guessing one', () => {
    const { FUNDUS_PUBLIC_HOST: _host, ...rest } = PUBLIC_ENV;
    const result = runCaddy(['validate', '--adapter', 'caddyfile', '--config', resolve(PROXY_DIR, 'Caddyfile')], { ...rest, FUNDUS_PUBLIC_HOST: '' });
    expect(result.status).not.toBe(0);
  });
});
