// The quota load test through the live kit (issue 18 point 5): builds the images (cached), brings
// the embedded-mode kit up with podman-compose on loopback, creates one key (5/s) in the admin
// container, and runs scripts/load/quota.ts against Caddy's HTTPS origin (trusting only Caddy's
// local root certificate) with 1, 2 and 3 gateway replicas running; then removes everything.
// Root and podman needed (scripts/dev/ensure-container-engine.sh). Bounded: about 5 minutes.
//
//   node_modules/.bin/node scripts/load/quota-kit.ts [--seconds 20] [--anonymous 16] [--public 4]

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { detectEngine } from '../../test/kit/lib/engine.ts';
import { buildImages, ComposeKit } from '../../test/kit/lib/kit.ts';
import { freePort } from '../../test/helpers/redis-server.ts';
import { ROOT } from '../../test/helpers/processes.ts';
import { scriptArgs } from '../bench/lib/args.ts';

const { values } = scriptArgs(import.meta.filename, { options: { seconds: { type: 'string', default: '20' }, anonymous: { type: 'string', default: '16' }, public: { type: 'string', default: '4' } } });
const seconds = Math.min(60, Math.max(5, Number(values.seconds)));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function quota(args: string[]): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [resolve(ROOT, 'scripts/load/quota.ts'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('close', (code) => (code === 0 ? done(out) : fail(new Error(`quota.ts exited ${code}`))));
  });
}

async function main(): Promise<void> {
  const engine = detectEngine();
  if (!engine.ok) throw new Error(`no container engine: ${engine.reason}`);
  await buildImages();
  const kit = new ComposeKit({ project: `fundus-quota-${process.pid}`, httpPort: await freePort(), httpsPort: await freePort() });
  try {
    await kit.up();
    const gateways = ['gateway-1', 'gateway-2', 'gateway-3'];
    for (const g of gateways) await kit.waitReady(g, 8082);
    await kit.waitFor('/openapi.json', [200]);
    const ca = join(tmpdir(), `${kit.project}-root.crt`);
    writeFileSync(ca, await kit.rootCertificate());
    const created = await kit.exec('admin', ['node', 'bin/fundus.js', 'keys', 'create', '--name', 'quota-load', '--limit', '5/s']);
    const key = created.trim().split('\n').pop()!.trim();
    const target = `https://localhost:${kit.options.httpsPort}`;
    for (const running of [1, 2, 3]) {
      for (const [i, g] of gateways.entries()) {
        if (i < running) {
          await kit.compose(['start', g]);
          await kit.waitReady(g, 8082);
        } else await kit.compose(['stop', '-t', '25', g]);
      }
      await sleep(5000); // Caddy's health checks (3 s) see the set of replicas
      console.log(`\n== ${running} gateway replica(s) through ${target} ==`);
      console.log(await quota(['--target', target, '--ca', ca, '--key', key, '--key-limit', '5/s', '--anonymous', String(values.anonymous), '--public', String(values.public), '--seconds', String(seconds)]));
      // A fresh public window (60/min, counted from its first request) for the next run.
      if (running < 3) await sleep(Math.max(0, 62_000 - seconds * 1000));
    }
  } finally {
    await kit.destroy();
  }
}

main().catch((error) => {
  console.error(`quota-kit: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
