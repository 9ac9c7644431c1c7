import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { ROOT } from './processes.ts';

// The Debian package's caddy (DESIGN.md section 6: proxy tests run a real Caddy, no Docker).
// A missing binary fails the test with a clear message: `.ci/run` installs the package.

export const CADDY_BINARY = process.env.CADDY_BIN ?? 'caddy';
export const PROXY_DIR = resolve(ROOT, 'proxy');

export function assertCaddyInstalled(): string {
  const probe = spawnSync(CADDY_BINARY, ['version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(`caddy is not installed (tried "${CADDY_BINARY}"): install the Debian package caddy (apt-get install caddy; .ci/run does this)`);
  }
  return probe.stdout.trim();
}

export interface CaddyResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCaddy(args: string[], env: Record<string, string>): CaddyResult {
  const result = spawnSync(CADDY_BINARY, args, { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The JSON config Caddy makes of a Caddyfile (first line of `caddy adapt`). */
export function adaptCaddyfile(file: string, env: Record<string, string>): Record<string, any> {
  const result = runCaddy(['adapt', '--adapter', 'caddyfile', '--config', file], env);
  if (result.status !== 0) throw new Error(`caddy adapt ${file} failed:\n${result.stderr}`);
  return JSON.parse(result.stdout.split('\n')[0]);
}

export interface HttpsAnswer {
  status: number;
  headers: import('node:http').IncomingHttpHeaders;
  body: string;
}

export interface LocalCaddy {
  httpPort: number;
  httpsPort: number;
  /** The public origin as clients see it. */
  origin: string;
  /** Caddy's local root certificate (PEM): the only CA the test client trusts. */
  ca: string;
  request(method: string, path: string, options?: { body?: string; headers?: Record<string, string>; timeoutMs?: number }): Promise<HttpsAnswer>;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `caddy run` on proxy/Caddyfile.local with loopback ports and upstreams from the environment. */
export async function startLocalCaddy(options: { httpPort: number; httpsPort: number; gatewayUpstreams: string[]; webUpstreams: string[] }): Promise<LocalCaddy> {
  assertCaddyInstalled();
  const { spawn } = await import('node:child_process');
  const { mkdtempSync, readFileSync, existsSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const https = await import('node:https');

  const home = mkdtempSync(join(tmpdir(), 'fundus-caddy-'));
  const { httpPort, httpsPort } = options;
  const env = {
    ...process.env,
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
    XDG_CONFIG_HOME: join(home, 'config'),
    CADDY_HTTP_PORT: String(httpPort),
    CADDY_HTTPS_PORT: String(httpsPort),
    GATEWAY_UPSTREAMS: options.gatewayUpstreams.join(' '),
    WEB_UPSTREAMS: options.webUpstreams.join(' '),
  };
  const child = spawn(CADDY_BINARY, ['run', '--config', resolve(PROXY_DIR, 'Caddyfile.local'), '--adapter', 'caddyfile'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));

  const rootFile = join(env.XDG_DATA_HOME, 'caddy/pki/authorities/local/root.crt');
  const deadline = Date.now() + 20_000;
  while (!existsSync(rootFile)) {
    if (child.exitCode !== null) throw new Error(`caddy exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`caddy wrote no local CA within 20 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const ca = readFileSync(rootFile, 'utf8');
  const agent = new https.Agent({ ca, keepAlive: true, maxSockets: 64 });

  const request: LocalCaddy['request'] = (method, path, { body, headers = {}, timeoutMs = 15_000 } = {}) =>
    new Promise((resolvePromise, reject) => {
      const req = https.request(
        { host: '127.0.0.1', port: httpsPort, servername: 'localhost', method, path, agent, headers: { host: `localhost:${httpsPort}`, ...headers }, timeout: timeoutMs },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on('error', reject);
      req.end(body);
    });

  // Certificates for "localhost" are issued in the background right after start.
  while (true) {
    try {
      await request('GET', '/openapi.json', { timeoutMs: 2000 });
      break;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`caddy did not answer HTTPS: ${String(error)}\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  return {
    httpPort,
    httpsPort,
    origin: `https://localhost:${httpsPort}`,
    ca,
    request,
    output: () => output,
    async stop() {
      agent.destroy();
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(home, { recursive: true, force: true });
    },
  };
}
