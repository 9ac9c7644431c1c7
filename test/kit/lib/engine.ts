import { execFile, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { ROOT } from '../../helpers/processes.ts';

// Which container engine the kit suite can use here, and why not when it cannot. podman (as root,
// the way ../shared/CONTAINERS.md sets it up) with podman-compose; the Debian base image is built by
// scripts/dev/ensure-container-engine.sh, which this runs once when it is missing and we are root.

export const BASE_IMAGE = process.env.FUNDUS_BASE_IMAGE ?? 'localhost/debian:bookworm';

export interface Engine {
  ok: boolean;
  /** Why the suite skips (empty when ok). */
  reason: string;
}

const run = (command: string, args: string[], timeoutMs = 60_000) =>
  spawnSync(command, args, { encoding: 'utf8', timeout: timeoutMs });

let cached: Engine | null = null;

export function detectEngine(): Engine {
  if (cached) return cached;
  cached = probe();
  return cached;
}

function probe(): Engine {
  if (process.env.FUNDUS_KIT === '0') return { ok: false, reason: 'FUNDUS_KIT=0' };
  const isRoot = process.getuid?.() === 0;
  const podman = run('podman', ['--version']);
  if (podman.error || podman.status !== 0) {
    return { ok: false, reason: isRoot ? 'podman is not installed (run scripts/dev/ensure-container-engine.sh)' : 'not root and podman is not installed' };
  }
  if (!isRoot) return { ok: false, reason: 'not root: the kit suite runs podman as root (../shared/CONTAINERS.md)' };
  const compose = run('podman-compose', ['version']);
  if (compose.error || compose.status !== 0) return { ok: false, reason: 'podman-compose is not installed (run scripts/dev/ensure-container-engine.sh)' };
  const info = run('podman', ['info', '--format', '{{.Host.NetworkBackend}}']);
  if (info.status !== 0) return { ok: false, reason: `podman does not work here: ${info.stderr.trim().split('\n').pop()}` };
  if (run('podman', ['image', 'exists', BASE_IMAGE]).status !== 0) {
    // Builds the base image with debootstrap from the machine's Debian mirror (about a minute).
    run('bash', [resolve(ROOT, 'scripts/dev/ensure-container-engine.sh')], 600_000);
    if (run('podman', ['image', 'exists', BASE_IMAGE]).status !== 0) {
      return { ok: false, reason: `no base image ${BASE_IMAGE} and it could not be built (see /var/tmp/fundus-debootstrap.log)` };
    }
  }
  return { ok: true, reason: '' };
}

export interface Exec {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command without blocking the event loop (load clients keep going meanwhile). */
export function sh(command: string, args: string[], options: { timeoutMs?: number; env?: Record<string, string>; cwd?: string } = {}): Promise<Exec> {
  return new Promise((done) => {
    execFile(
      command,
      args,
      { timeout: options.timeoutMs ?? 600_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...options.env }, cwd: options.cwd },
      (error, stdout, stderr) => {
        const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1) : 0;
        done({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

/** Like sh, but a non-zero exit is an error naming the command and its output. */
export async function must(command: string, args: string[], options: Parameters<typeof sh>[2] = {}): Promise<string> {
  const result = await sh(command, args, options);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.code}:\n${result.stderr.slice(-3000)}\n${result.stdout.slice(-2000)}`);
  return result.stdout;
}
