import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT } from '../../helpers/processes.ts';
import { must, sh } from './engine.ts';
import { httpsOrigin, type Origin } from './origin.ts';

// One compose project of the kit, brought up with podman-compose exactly as an operator does
// (README "Deploy"): the repository's compose files and a .env, in a project folder of its own
// (podman-compose reads .env beside the first compose file, so a developer's own .env in the
// repository never leaks in). proxy/, infra/ and samples/ are the repository's, linked.

export const IMAGES = {
  fundus: process.env.FUNDUS_KIT_IMAGE ?? 'localhost/fundus:kit-test',
  caddy: process.env.CADDY_IMAGE ?? 'localhost/fundus-caddy:2.6',
  redis: process.env.REDIS_IMAGE ?? 'localhost/fundus-redis:7.0',
};

export interface KitOptions {
  project: string;
  httpPort: number;
  httpsPort: number;
  /** Extra .env lines (e.g. GATEWAY_UPSTREAMS for fewer replicas). */
  env?: Record<string, string>;
  files?: string[];
}

export class ComposeKit {
  readonly dir: string;
  readonly env: Record<string, string>;
  readonly options: KitOptions;
  private origin: Origin | null = null;

  constructor(options: KitOptions) {
    this.options = options;
    this.dir = mkdtempSync(join(tmpdir(), `${options.project}-`));
    for (const file of ['docker-compose.yml', 'docker-compose.typesense.yml']) copyFileSync(resolve(ROOT, file), join(this.dir, file));
    for (const folder of ['proxy', 'infra', 'samples']) symlinkSync(resolve(ROOT, folder), join(this.dir, folder));
    this.env = {
      FUNDUS_PUBLIC_HOST: 'localhost',
      FUNDUS_PUBLIC_URL: `https://localhost:${options.httpsPort}`,
      ACME_EMAIL: 'ops@example.org',
      FUNDUS_TLS: 'internal',
      PUBLISH_ADDRESS: '127.0.0.1',
      HTTP_PORT: String(options.httpPort),
      HTTPS_PORT: String(options.httpsPort),
      REDIS_PASSWORD: `redis-${Math.random().toString(36).slice(2)}${Date.now()}`,
      FUNDUS_ADMIN_TOKEN: `admin-${Math.random().toString(36).slice(2)}${Date.now()}`,
      FUNDUS_KEY_PEPPER: randomBytes(32).toString('base64url'),
      FUNDUS_IMAGE: IMAGES.fundus,
      CADDY_IMAGE: IMAGES.caddy,
      REDIS_IMAGE: IMAGES.redis,
      ...options.env,
    };
    writeFileSync(join(this.dir, '.env'), Object.entries(this.env).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
  }

  get project(): string {
    return this.options.project;
  }

  /** podman-compose's container name for a service (one container per service in this kit). */
  container(service: string): string {
    return `${this.project}_${service}_1`;
  }

  compose(args: string[], timeoutMs = 600_000) {
    const files = (this.options.files ?? ['docker-compose.yml']).flatMap((file) => ['-f', file]);
    return must('podman-compose', ['-p', this.project, ...files, ...args], { cwd: this.dir, timeoutMs });
  }

  up(services: string[] = []) {
    return this.compose(['up', '-d', ...services]);
  }

  /** `down` as an operator runs it: containers and networks go, volumes stay. */
  down() {
    return this.compose(['down', '-t', '25']);
  }

  exec(service: string, args: string[], timeoutMs = 60_000) {
    return must('podman', ['exec', this.container(service), ...args], { timeoutMs });
  }

  async logs(service: string): Promise<string> {
    const result = await sh('podman', ['logs', this.container(service)]);
    return result.stdout + result.stderr;
  }

  /** Caddy's local root certificate, from its data volume (written a moment after start). */
  async rootCertificate(deadlineMs = 60_000): Promise<string> {
    const end = Date.now() + deadlineMs;
    for (let i = 0; ; i++) {
      const result = await sh('podman', ['exec', this.container('caddy'), 'cat', '/data/caddy/pki/authorities/local/root.crt']);
      if (result.code === 0 && result.stdout.includes('BEGIN CERTIFICATE')) return result.stdout;
      if (Date.now() > end) throw new Error(`caddy wrote no local root certificate:\n${await this.logs('caddy')}`);
      await new Promise((r) => setTimeout(r, 250 + Math.min(i, 20) * 50));
    }
  }

  /** The HTTPS origin on loopback, trusting Caddy's root certificate only. */
  async httpsOrigin(): Promise<Origin> {
    if (!this.origin) {
      const ca = await this.rootCertificate();
      this.origin = httpsOrigin({ host: '127.0.0.1', port: this.options.httpsPort, servername: 'localhost', ca });
    }
    return this.origin;
  }

  /** A fresh client (after `down`/`up` Caddy keeps its CA in caddy_data, but connections are new). */
  resetOrigin(): void {
    this.origin?.close();
    this.origin = null;
  }

  /** Waits (bounded) until a replica answers `path` through Caddy with one of `statuses`. */
  async waitFor(path: string, statuses: number[], deadlineMs = 180_000, headers: Record<string, string> = {}): Promise<void> {
    const origin = await this.httpsOrigin();
    const end = Date.now() + deadlineMs;
    let last = '';
    for (let i = 0; Date.now() < end; i++) {
      const answer = await origin.request('GET', path, { headers, timeoutMs: 5000 }).catch((error: Error) => ({ status: -1, body: error.message }));
      if (statuses.includes(answer.status)) return;
      last = `${answer.status} ${answer.body.slice(0, 200)}`;
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`GET ${path} through Caddy never answered ${statuses.join('/')} (last: ${last})`);
  }

  /** Waits (bounded) until the service's own /readyz answers 200 inside its container. */
  async waitReady(service: string, port: number, deadlineMs = 120_000): Promise<void> {
    const end = Date.now() + deadlineMs;
    const probe = `fetch('http://127.0.0.1:${port}/readyz').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))`;
    while (Date.now() < end) {
      const result = await sh('podman', ['exec', this.container(service), 'node', '-e', probe], { timeoutMs: 15_000 });
      if (result.code === 0) return;
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`${service} never became ready:\n${(await this.logs(service)).slice(-2000)}`);
  }

  /** Removes everything of this project, volumes included (podman labels every object it made). */
  async destroy(): Promise<void> {
    this.resetOrigin();
    const label = `label=io.podman.compose.project=${this.project}`;
    const ids = (await sh('podman', ['ps', '-aq', '--filter', label])).stdout.split('\n').filter(Boolean);
    if (ids.length) await sh('podman', ['rm', '-f', '-t', '0', ...ids]);
    const networks = (await sh('podman', ['network', 'ls', '-q', '--filter', label])).stdout.split('\n').filter(Boolean);
    if (networks.length) await sh('podman', ['network', 'rm', '-f', ...networks]);
    const volumes = (await sh('podman', ['volume', 'ls', '-q', '--filter', label])).stdout.split('\n').filter(Boolean);
    if (volumes.length) await sh('podman', ['volume', 'rm', '-f', ...volumes]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Builds the images the kit runs from the working tree; podman's layer cache makes a rebuild of unchanged sources quick. */
export async function buildImages(): Promise<void> {
  const build = resolve(ROOT, 'infra/images/build.sh');
  const have = async (image: string) => (await sh('podman', ['image', 'exists', image])).code === 0;
  const env = { CADDY_IMAGE: IMAGES.caddy, REDIS_IMAGE: IMAGES.redis, FUNDUS_IMAGE: IMAGES.fundus };
  const missing = [...((await have(IMAGES.caddy)) ? [] : ['caddy']), ...((await have(IMAGES.redis)) ? [] : ['redis'])];
  if (missing.length) await must('bash', [build, ...missing], { env, timeoutMs: 900_000 });
  // The machine's CA bundle goes in as the extra CA: on hosts whose outbound HTTPS passes a
  // TLS-inspecting proxy, npm inside the build needs it (a no-op elsewhere).
  const bundle = '/etc/ssl/certs/ca-certificates.crt';
  const { existsSync } = await import('node:fs');
  await must('bash', [build, 'fundus'], { env: { ...env, ...(existsSync(bundle) ? { EXTRA_CA: bundle } : {}) }, timeoutMs: 1_500_000 });
}
