import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Vitest's global setup: every temporary file of one run (the suites' data folders, indexes,
 * sockets, and those of the processes they start) goes into one folder, removed when the run ends.
 * Suites may still clean up after themselves; this catches what they leave, and what a killed
 * process leaves, so that test runs do not fill the machine's /tmp.
 */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'fundus-test-'));
  // Forked workers and the processes they spawn inherit the environment; tmpdir() reads TMPDIR.
  process.env.TMPDIR = root;
  return () => rmSync(root, { recursive: true, force: true, maxRetries: 3 });
}
