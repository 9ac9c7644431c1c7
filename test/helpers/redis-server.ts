import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A real redis-server on a free loopback port (DESIGN.md section 6: no Docker; tests start the
// Debian package's binary). Missing redis-server fails the test loudly: `.ci/run` installs it.

const REDIS_BINARY = process.env.REDIS_SERVER_BIN ?? 'redis-server';

function assertInstalled(): void {
  const probe = spawnSync(REDIS_BINARY, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(`redis-server is not installed (tried "${REDIS_BINARY}"): install the Debian package redis-server (apt-get install redis-server; .ci/run does this)`);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    socket.setTimeout(500, () => socket.destroy());
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (answer.includes('\r\n')) socket.end();
    });
    socket.on('close', () => resolve(answer.startsWith('+PONG')));
    socket.on('error', () => resolve(false));
  });
}

async function waitForPing(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode} before answering PING`);
    if (await pingOnce(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server did not answer PING on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Kills the server (SIGKILL, like a crash); `start()` brings it back on the same port, empty. */
  kill(): Promise<void>;
  /** Stalls the server (SIGSTOP): connections stay open, commands get no answer until `resume()`. */
  pause(): void;
  resume(): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServer> {
  assertInstalled();
  const dir = mkdtempSync(join(tmpdir(), 'fundus-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;

  async function start(): Promise<void> {
    if (child) return;
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'yes', '--loglevel', 'warning'];
    const started = spawn(REDIS_BINARY, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child = started;
    started.once('exit', () => {
      if (child === started) child = null;
    });
    await waitForPing(port, started, 10_000);
  }

  async function kill(): Promise<void> {
    const running = child;
    if (!running) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
    child = null;
  }

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
    start,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
