import { crawlInputs } from '../ingest/resource-inputs.ts';
import { crawl } from '../ingest/sources/crawler.ts';
import { archiveFetched, crawlOptionsFrom, crawlStateFile, CRAWL_USAGE, parseCrawlArgs } from '../ingest/sources/crawl-flags.ts';
import { openCrawlState } from '../ingest/sources/crawl-state.ts';
import { createWarcWriter } from '../ingest/sources/warc-writer.ts';
import { ingestInputs } from './ingest-command.ts';
import { formatSummary } from './progress.ts';
import { UsageError } from './usage.ts';

// `fundus crawl`: fetches pages politely (robots.txt, per-host delay, limits, conditional requests)
// and ingests them. Crawling is an operator's job; a search never triggers one (spec 1).

/** The crawl flags; any mistake in them is a usage error (exit 2). */
function parsedOrUsageError(argv: string[]): ReturnType<typeof parseCrawlArgs> {
  try {
    return parseCrawlArgs(argv);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export async function crawlCommand(argv: string[]): Promise<number> {
  const args = parsedOrUsageError(argv);
  if (args.help) {
    console.log(CRAWL_USAGE);
    return 0;
  }
  if (!args.dataDir) throw new UsageError('--data: required (the data directory of the index)');
  const state = openCrawlState(crawlStateFile(args.dataDir));
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const writer = args.warcOut ? await createWarcWriter(args.warcOut) : null;
  try {
    let events = crawl(crawlOptionsFrom(args, state, controller.signal));
    if (writer) events = archiveFetched(events, writer);
    const summary = await ingestInputs(
      { dataDir: args.dataDir, maxBytes: args.maxBytes, workers: 2, timeoutMs: args.timeoutMs, quiet: false },
      crawlInputs(events),
    );
    console.log(formatSummary(summary));
    return 0;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await writer?.close();
    state.close();
  }
}
