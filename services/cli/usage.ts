import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config-error.ts';
import { projectRoot } from './paths.ts';

// One table of exit codes for every command (README "The fundus command"), the shared usage error,
// and the flags every command and subcommand answers without doing anything else.

export const EXIT = {
  /** Done. */
  ok: 0,
  /** The command ran and failed: a file or service it needs is missing or broke, a key was not found. */
  failure: 1,
  /** The command line was wrong: unknown command or flag, missing or malformed value, bad setting. */
  usage: 2,
} as const;

/** A mistake in the command line: reported with the usage and exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Usage errors of any origin: ours, a bad setting (ConfigError), or node:util parseArgs's own. */
export function isUsageError(error: unknown): error is Error {
  if (error instanceof UsageError || error instanceof ConfigError) return true;
  return error instanceof TypeError && String((error as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS');
}

/** The arguments before a `--`, the only ones that can be flags. */
function flagsOf(argv: string[]): string[] {
  const end = argv.indexOf('--');
  return end < 0 ? argv : argv.slice(0, end);
}

export function wantsHelp(argv: string[]): boolean {
  return flagsOf(argv).some((arg) => arg === '-h' || arg === '--help');
}

export function wantsVersion(argv: string[]): boolean {
  return flagsOf(argv).includes('--version');
}

export function versionText(): string {
  const { version } = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string };
  return `fundus ${version} (Node.js ${process.versions.node})`;
}
