import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { ROOT } from '../helpers/processes.ts';
import { freePort } from '../helpers/redis-server.ts';
import { detectEngine, must, sh } from './lib/engine.ts';
import { buildImages, IMAGES } from './lib/kit.ts';
import { httpsOrigin, type Origin } from './lib/origin.ts';

// The Kubernetes manifests run (issue 18 point 6): the embedded overlay rendered with
// `kubectl kustomize`, its gateway, search-web and Caddy Deployments with their ConfigMaps and the
// Secret played with `podman kube play` on a network of their own, and a search answered through
// Caddy's HTTPS origin. What podman cannot play is changed here and named:
// - no Services (no Service DNS): Caddy's upstreams point at the pods' names (a Service in a cluster);
// - no StatefulSet (Redis): the replicas run on their in-process fallback budgets;
// - the index volume (a PersistentVolumeClaim, a podman named volume here) is filled by the ingest
//   command first (the CronJob in a cluster);
// - podman 4.3 stores a played Secret in a form its own secretKeyRef cannot read, so the rendered
//   Secret goes in as `podman secret create` with the data map podman reads (JSON, base64 values);
// - images: the ones built from this tree; Caddy's name: localhost with its local CA (no ACME).

const engine = detectEngine();
const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const reason = !engine.ok ? engine.reason : kubectl.error || kubectl.status !== 0 ? 'kubectl is not installed (it renders the overlays: kubectl kustomize)' : '';
if (reason) console.warn(`\n*** kit kube play SKIPPED: ${reason} ***\n`);

type Json = Record<string, any>;
const RUN = `fundus-kube-${process.pid}-${randomBytes(3).toString('hex')}`;
const NETWORK = RUN;
const SECRET = 'fundus-secrets';
const VOLUMES = { index: `${RUN}-index-data`, caddy: `${RUN}-caddy-data` };

let dir = '';
let playFile = '';
let origin: Origin;
let httpsPort = 0;

function podFor(deployment: string): string {
  // podman kube play names a Deployment's pod "<name>-pod-0" and its containers "<pod>-<container>".
  return `${deployment}-pod-0`;
}

async function renderPlayable(): Promise<Json[]> {
  const rendered = await must('kubectl', ['kustomize', resolve(ROOT, 'k8s/overlays/embedded')]);
  const objects = parseAllDocuments(rendered).map((doc) => doc.toJSON() as Json);
  const keep = objects.filter(
    (o) => (o.kind === 'ConfigMap' && /^(fundus-config|caddy-env|caddy-config)-/.test(o.metadata.name)) || (o.kind === 'Deployment' && ['gateway', 'search-web', 'caddy'].includes(o.metadata.name)),
  );
  expect(keep.map((o) => `${o.kind}/${o.metadata.name.replace(/-[a-z0-9]{10}$/, '')}`).sort()).toEqual(
    ['ConfigMap/caddy-config', 'ConfigMap/caddy-env', 'ConfigMap/fundus-config', 'Deployment/caddy', 'Deployment/gateway', 'Deployment/search-web'],
  );
  const origin = `https://localhost:${httpsPort}`;
  for (const object of keep) {
    delete object.metadata.namespace;
    if (object.metadata.name.startsWith('caddy-env-')) {
      Object.assign(object.data, { FUNDUS_PUBLIC_HOST: 'localhost', FUNDUS_TLS: 'internal', GATEWAY_UPSTREAMS: `${podFor('gateway')}:8082`, WEB_UPSTREAMS: `${podFor('search-web')}:8080` });
    }
    if (object.metadata.name.startsWith('fundus-config-')) Object.assign(object.data, { FUNDUS_EXTERNAL_URL: origin, FUNDUS_WEB_EXTERNAL_URL: origin });
    if (object.kind !== 'Deployment') continue;
    const spec = object.spec.template.spec;
    for (const container of spec.containers) {
      container.image = object.metadata.name === 'caddy' ? IMAGES.caddy : IMAGES.fundus;
      for (const port of container.ports ?? []) if (object.metadata.name === 'caddy' && port.containerPort === 443 && port.protocol !== 'UDP') Object.assign(port, { hostIP: '127.0.0.1', hostPort: httpsPort });
    }
    for (const volume of spec.volumes ?? []) {
      if (volume.persistentVolumeClaim?.claimName === 'index-data') volume.persistentVolumeClaim.claimName = VOLUMES.index;
      if (volume.persistentVolumeClaim?.claimName === 'caddy-data') volume.persistentVolumeClaim.claimName = VOLUMES.caddy;
    }
  }
  return keep;
}

/** The Secret an operator creates (k8s/base/secrets.template.yaml), in the form podman 4.3's secretKeyRef reads. */
async function createSecret(): Promise<void> {
  const template = parseAllDocuments((await import('node:fs')).readFileSync(resolve(ROOT, 'k8s/base/secrets.template.yaml'), 'utf8'))[0].toJSON() as Json;
  const values: Record<string, string> = {};
  for (const key of Object.keys(template.stringData)) {
    // The pepper must be 32 bytes in base64url; every other secret is any string.
    const value = key === 'FUNDUS_KEY_PEPPER' ? randomBytes(32).toString('base64url') : `${key.toLowerCase()}-${randomBytes(12).toString('hex')}`;
    values[key] = Buffer.from(value).toString('base64');
  }
  const file = join(dir, 'secret.json');
  writeFileSync(file, JSON.stringify(values));
  await sh('podman', ['secret', 'rm', SECRET]);
  await must('podman', ['secret', 'create', SECRET, file]);
}

describe.skipIf(Boolean(reason))('the Kubernetes manifests with podman kube play: gateway, search-web and Caddy to ready, a search through Caddy', () => {
  beforeAll(async () => {
    await buildImages();
    dir = mkdtempSync(join(tmpdir(), 'fundus-kube-'));
    httpsPort = await freePort();
    playFile = join(dir, 'play.yaml');
    writeFileSync(playFile, (await renderPlayable()).map((o) => stringify(o)).join('---\n'));
    await createSecret();
    await must('podman', ['network', 'create', NETWORK]);
    await must('podman', ['volume', 'create', VOLUMES.index]);
    await must('podman', ['run', '--rm', '-v', `${VOLUMES.index}:/data`, IMAGES.fundus, 'ingest', '--data', '/data', '--quiet', '/app/samples/web'], { timeoutMs: 300_000 });
    await must('podman', ['kube', 'play', '--network', NETWORK, playFile], { timeoutMs: 300_000 });
  }, 1_500_000);

  afterAll(async () => {
    origin?.close();
    if (playFile) await sh('podman', ['kube', 'down', playFile]);
    for (const pod of ['caddy', 'gateway', 'search-web'].map(podFor)) await sh('podman', ['pod', 'rm', '-f', pod]);
    await sh('podman', ['secret', 'rm', SECRET]);
    // kube play also makes a volume per ConfigMap it mounts; they carry the ConfigMap's hashed name.
    const volumes = (await sh('podman', ['volume', 'ls', '-q'])).stdout.split('\n').filter((v) => v.startsWith(RUN) || /^caddy-config-[a-z0-9]{10}$/.test(v));
    if (volumes.length) await sh('podman', ['volume', 'rm', '-f', ...volumes]);
    await sh('podman', ['network', 'rm', '-f', NETWORK]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 300_000);

  it('brings the gateway and search-web pods to ready (their own /readyz)', async () => {
    for (const [deployment, port] of [['gateway', 8082], ['search-web', 8080]] as const) {
      const container = `${podFor(deployment)}-fundus`;
      const probe = `fetch('http://127.0.0.1:${port}/readyz').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))`;
      let ready = false;
      for (let i = 0; i < 240 && !ready; i++) {
        ready = (await sh('podman', ['exec', container, 'node', '-e', probe], { timeoutMs: 15_000 })).code === 0;
        if (!ready) await new Promise((r) => setTimeout(r, 500));
      }
      expect(ready, `${deployment}:\n${(await sh('podman', ['logs', container])).stderr.slice(-1500)}`).toBe(true);
    }
  }, 300_000);

  it('answers a search through Caddy over HTTPS (Caddy’s local root certificate only)', async () => {
    const caddy = `${podFor('caddy')}-caddy`;
    let ca = '';
    for (let i = 0; i < 240 && !ca.includes('BEGIN CERTIFICATE'); i++) {
      ca = (await sh('podman', ['exec', caddy, 'cat', '/data/caddy/pki/authorities/local/root.crt'])).stdout;
      if (!ca.includes('BEGIN CERTIFICATE')) await new Promise((r) => setTimeout(r, 500));
    }
    expect(ca).toContain('BEGIN CERTIFICATE');
    origin = httpsOrigin({ host: '127.0.0.1', port: httpsPort, servername: 'localhost', ca });
    // Caddy's active health checks (3 s) take each pod into rotation at its own first passing check:
    // the gateway's and the front end's may be one interval apart, and a path whose upstreams are
    // all still unchecked is answered 503. The anonymous budget is 1/s.
    const answerOf = async (path: string) => {
      let answer = { status: 0, body: '' };
      for (let i = 0; i < 120 && answer.status !== 200; i++) {
        answer = await origin.request('POST', path, { body: JSON.stringify({ q: 'Miete' }) }).catch((e: Error) => ({ status: -1, body: e.message }));
        if (answer.status !== 200) await new Promise((r) => setTimeout(r, 1100));
      }
      return answer;
    };
    const answer = await answerOf('/v1/search');
    expect(answer.status, answer.body).toBe(200);
    expect(JSON.parse(answer.body).results.length).toBeGreaterThan(0);
    const page = await answerOf('/api/search');
    expect(page.status, page.body).toBe(200);
    expect((await origin.request('GET', '/openapi.json')).body).toContain(`"url":"https://localhost:${httpsPort}"`);
    expect((await origin.request('GET', '/readyz')).status).toBe(404);
  }, 300_000);
});
