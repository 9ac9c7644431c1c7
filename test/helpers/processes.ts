import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { projectRoot } from '../../services/cli/paths.ts';

// The built program as a child process (`npm test` builds dist/ first), as a user runs it.

export const ROOT = projectRoot();
export const FUNDUS_BIN = resolve(ROOT, 'bin/fundus.js');
export { CORPUS } from './shared-corpus.ts';

export function requireBuild(): void {
  if (!existsSync(resolve(ROOT, 'dist/services/cli/main.js'))) throw new Error('dist/ is missing: run `npm run build` (npm test does it)');
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runFundus(args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<RunResult> {
  requireBuild();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [FUNDUS_BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

export interface ServingProcess {
  child: ChildProcess;
  urls: Record<string, string>;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `fundus serve` on free ports (port 0) and waits until every role printed its address. */
export function startFundus(args: string[], env: Record<string, string> = {}, roles = ['gateway'], nodeArgs: string[] = []): Promise<ServingProcess> {
  requireBuild();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, FUNDUS_BIN, 'serve', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const urls: Record<string, string> = {};
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`fundus serve did not start in time:\n${output}`));
    }, 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      for (const match of output.matchAll(/^fundus (\w+): (http\S+)$/gm)) urls[match[1]] = match[2];
      if (roles.every((role) => urls[role])) {
        clearTimeout(timer);
        resolvePromise({
          child,
          urls,
          output: () => output,
          async stop(signal: NodeJS.Signals = 'SIGTERM') {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (!roles.every((role) => urls[role])) reject(new Error(`fundus serve exited with ${code}:\n${output}`));
    });
  });
}
