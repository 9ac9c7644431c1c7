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
