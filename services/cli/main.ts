import { printable, printableMessage } from './printable.ts';
import { crawlCommand } from './crawl-command.ts';
import { DEMO_USAGE, demoCommand } from './demo-command.ts';
import { FEDIVERSE_USAGE, runFediverseCommand } from './fediverse-command.ts';
import { INDEX_USAGE, runIndexCommand } from './index-command.ts';
import { INGEST_USAGE, ingestCommand } from './ingest-command.ts';
import { KEYS_USAGE, runKeysCommand } from './keys-command.ts';
import { SERVE_USAGE, serveCommand } from './serve-command.ts';
import { EXIT, isUsageError, versionText, wantsHelp, wantsVersion } from './usage.ts';

const USAGE = `fundus — read-only search and document index for stored web documents

  fundus ingest --data DIR [--manifest FILE] PATH...   add documents (HTML, PDF, DOCX, DOC, ODT, WARC)
  fundus ingest --data DIR --records FILE.jsonl         add pre-extracted documents
  fundus crawl --data DIR --seed URL|--sitemap URL      fetch pages politely and ingest them
  fundus serve --data DIR [--role R] [--port P]         serve the REST API, MCP, search page, admin
  fundus fediverse ingest --data DIR FILE...            add public fediverse posts (Mastodon JSON, outbox)
  fundus fediverse fetch --data DIR --instance HOST     page an instance's public local timeline politely
  fundus keys create|list|revoke|set-limit --data DIR   manage project read keys
  fundus index copy --from sqlite --to typesense        move the embedded index into a Typesense cluster
  fundus index status [--collection web|fediverse]      where the Typesense alias points, how many records
  fundus index search-key --to typesense               create the search-only Typesense key the replicas use
  fundus index optimize --data DIR                      merge the embedded index, rebuild its lists
  fundus demo                                           ingest samples/ and serve them (what npm start runs)

  fundus COMMAND --help    the options of a command (also -h; "fundus help COMMAND")
  fundus --version         the program's version

Exit codes: 0 done, 1 failed (a file, service or key missing or broken), 2 wrong command line.`;

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  ingest: ingestCommand,
  serve: serveCommand,
  keys: (argv) => runKeysCommand(argv),
  crawl: crawlCommand,
  fediverse: runFediverseCommand,
  index: (argv) => runIndexCommand(argv),
  demo: demoCommand,
};

/** Each command's help; crawl prints its own (it owns the flag table). */
const HELP: Record<string, string | null> = {
  ingest: INGEST_USAGE,
  serve: SERVE_USAGE,
  keys: KEYS_USAGE,
  crawl: null,
  fediverse: FEDIVERSE_USAGE,
  index: INDEX_USAGE,
  demo: DEMO_USAGE,
};

/** Prints a command's help and nothing else happens: no data directory, no index, no server. */
async function help(name: string): Promise<number> {
  const text = HELP[name];
  if (text === null) return crawlCommand(['--help']);
  console.log(text);
  return EXIT.ok;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (wantsVersion(argv)) {
    console.log(versionText());
    return EXIT.ok;
  }
  if (!name) {
    console.error(USAGE);
    return EXIT.usage;
  }
  if (name === '-h' || name === '--help' || name === 'help') {
    if (name === 'help' && rest[0] && rest[0] in COMMANDS) return help(rest[0]);
    console.log(USAGE);
    return EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`fundus: unknown command "${printable(name)}"\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (wantsHelp(rest)) return help(name);
  try {
    return await command(rest);
  } catch (error) {
    if (isUsageError(error)) {
      console.error(`fundus ${name}: ${printableMessage(error.message)}\n(run "fundus ${name} --help" for the options)`);
      return EXIT.usage;
    }
    throw error;
  }
}
