import { ConfigError } from './config.ts';
import { printable, printableMessage } from './printable.ts';
import { crawlCommand } from './crawl-command.ts';
import { demoCommand } from './demo-command.ts';
import { runFediverseCommand } from './fediverse-command.ts';
import { runIndexCommand } from './index-command.ts';
import { ingestCommand } from './ingest-command.ts';
import { serveCommand } from './serve-command.ts';
import { runKeysCommand } from './keys-command.ts';

const USAGE = `fundus — read-only search and document index for stored web documents

  fundus ingest --data DIR [--manifest FILE] PATH...   add documents (HTML, PDF, DOCX, DOC, ODT)
  fundus crawl --data DIR --seed URL|--sitemap URL      fetch pages politely and ingest them
  fundus serve --data DIR [--role R] [--port P]         serve the REST API, MCP, search page, admin
  fundus fediverse ingest --data DIR FILE...            add public fediverse posts (Mastodon JSON, outbox)
  fundus fediverse fetch --data DIR --instance HOST     page an instance's public local timeline politely
  fundus keys create|list|revoke|set-limit --data DIR   manage project read keys
  fundus index copy --from sqlite --to typesense        move the embedded index into a Typesense cluster
  fundus demo                                           ingest samples/ and serve them

Run "fundus COMMAND --help" for the options of a command.`;

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  ingest: ingestCommand,
  serve: serveCommand,
  keys: (argv) => runKeysCommand(argv),
  crawl: crawlCommand,
  fediverse: runFediverseCommand,
  index: (argv) => runIndexCommand(argv),
  demo: demoCommand,
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === 'help') {
    console.log(USAGE);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`fundus: unknown command "${printable(name)}"\n\n${USAGE}`);
    return 2;
  }
  try {
    return await command(rest);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`fundus ${name}: ${printableMessage(error.message)}`);
      return 2;
    }
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      console.error(`fundus ${name}: ${printableMessage(error.message)}`);
      return 2;
    }
    throw error;
  }
}
