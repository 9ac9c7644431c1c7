// Command-line options of the benchmark and load scripts: `--help` prints the script's usage (its
// opening comment), and a wrong option says so in one line instead of a stack trace.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A script's usage: its opening comment, up to its first import, without the comment marks. */
function usageOf(file: string): string {
  return readFileSync(file, 'utf8').split('\nimport ')[0].replace(/^\/\/ ?/gm, '');
}

/** `parseArgs(config)` for the script `file` (pass `import.meta.filename`), with `--help` and a clear error. */
export function scriptArgs<T extends ParseArgsConfig>(file: string, config: T): ReturnType<typeof parseArgs<T>> {
  const args = config.args ?? process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${usageOf(file)}\n`);
    process.exit(0);
  }
  try {
    return parseArgs(config);
  } catch (error) {
    process.stderr.write(`${basename(file)}: ${(error as Error).message}\n(--help prints the usage)\n`);
    process.exit(2);
  }
}
