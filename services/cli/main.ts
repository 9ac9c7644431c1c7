import { printable, printableMessage } from './printable.ts';
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

// Each command's module is loaded when it runs: loading all of them (the server, MCP, Typesense
// client...) cost every `fundus ingest` about 0.3 s of CPU before its first file. A command's help
// comes from the same module (crawl prints its own: it owns the flag table).
type Command = (argv: string[]) => Promise<number>;
const COMMANDS: Record<string, () => Promise<{ run: Command; usage: string | null }>> = {
  ingest: async () => {
    const { ingestCommand, INGEST_USAGE } = await import('./ingest-command.ts');
    return { run: ingestCommand, usage: INGEST_USAGE };
  },
  serve: async () => {
    const { serveCommand, SERVE_USAGE } = await import('./serve-command.ts');
    return { run: serveCommand, usage: SERVE_USAGE };
  },
  keys: async () => {
    const { runKeysCommand, KEYS_USAGE } = await import('./keys-command.ts');
    return { run: (argv) => runKeysCommand(argv), usage: KEYS_USAGE };
  },
  crawl: async () => ({ run: (await import('./crawl-command.ts')).crawlCommand, usage: null }),
  fediverse: async () => {
    const { runFediverseCommand, FEDIVERSE_USAGE } = await import('./fediverse-command.ts');
    return { run: runFediverseCommand, usage: FEDIVERSE_USAGE };
  },
  index: async () => {
    const { runIndexCommand, INDEX_USAGE } = await import('./index-command.ts');
    return { run: (argv) => runIndexCommand(argv), usage: INDEX_USAGE };
  },
  demo: async () => {
    const { demoCommand, DEMO_USAGE } = await import('./demo-command.ts');
    return { run: demoCommand, usage: DEMO_USAGE };
  },
};

/** Prints a command's help and nothing else happens: no data directory, no index, no server. */
async function help(name: string): Promise<number> {
  const { run, usage } = await COMMANDS[name]();
  if (usage === null) return run(['--help']);
  console.log(usage);
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
    if (name === 'help' && rest[0] && Object.hasOwn(COMMANDS, rest[0])) return help(rest[0]);
    console.log(USAGE);
    return EXIT.ok;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    console.error(`fundus: unknown command "${printable(name)}"\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (wantsHelp(rest)) return help(name);
  try {
    return await (await load()).run(rest);
  } catch (error) {
    if (isUsageError(error)) {
      console.error(`fundus ${name}: ${printableMessage(error.message)}\n(run "fundus ${name} --help" for the options)`);
      return EXIT.usage;
    }
    throw error;
  }
}
