import { parseArgs } from 'node:util';
import type { DocumentIndex } from '../core/index-port.ts';
import { createExtractionPool } from '../ingest/extract/pool.ts';
import type { IngestInput } from '../ingest/item.ts';
import type { IngestSummary } from '../ingest/pipeline.ts';
import { createProgress, formatSummary } from './progress.ts';
import type { Config } from './config.ts';
import { UsageError } from './usage.ts';

export const INGEST_USAGE = `fundus ingest --data DIR [--manifest FILE]... [--records FILE]... [PATH...]

Adds documents to the index in DIR: files and folders (recursively), and WARC files
(*.warc, *.warc.gz: each response record keeps its URL and fetch time). A folder with a
manifest.jsonl at its top, or a --manifest FILE (JSONL: path, url, fetched_at, headers),
keeps each file's original URL, fetch time and HTTP headers. Re-ingesting changes nothing;
changed documents are updated. Bad files are reported and skipped.
--records FILE reads pre-extracted documents (JSONL: url, title, text, document_type,
published_at, modified_at, fetched_at, topic, news) and skips extraction.

  --max-mb N        skip files larger than N MiB (default 50)
  --workers N       extraction workers (default 2)
  --timeout-ms N    CPU time limit per file (default 30000; 4 × N of wall clock
                    without an answer also ends it)
  --quiet           no per-file messages`;

export interface IngestRun {
  dataDir: string;
  paths: string[];
  manifests: string[];
  records?: string[];
  maxBytes: number;
  workers: number;
  timeoutMs: number;
  quiet: boolean;
}

// The readers of records and WARC files load only when given such inputs: the WARC reader brings
// node:http along (about 30 ms of CPU), which a run over a manifest never needs.
async function* allInputs(run: IngestRun): AsyncGenerator<IngestInput> {
  if (run.records?.length) {
    const { readRecords } = await import('../ingest/records.ts');
    for (const file of run.records) yield* readRecords(file);
  }
  let paths = run.paths;
  if (paths.length) {
    const { isWarcFile, warcInputs } = await import('../ingest/resource-inputs.ts');
    for (const file of paths.filter(isWarcFile)) yield* warcInputs(file);
    paths = paths.filter((path) => !isWarcFile(path));
  }
  if (paths.length || run.manifests.length) yield* (await import('../ingest/local-files.ts')).localInputs(paths, run.manifests);
}

export async function runIngest(run: IngestRun, out: NodeJS.WriteStream = process.stderr): Promise<IngestSummary> {
  return ingestInputs(run, allInputs(run), out);
}

/** Runs the pipeline over any inputs into the SQLite index of `run.dataDir` (also used by `fundus crawl`). */
export async function ingestInputs(
  run: Pick<IngestRun, 'dataDir' | 'maxBytes' | 'workers' | 'timeoutMs' | 'quiet' | 'records'>,
  inputs: AsyncIterable<IngestInput>,
  out: NodeJS.WriteStream = process.stderr,
): Promise<IngestSummary> {
  // The extraction processes start first: their start-up (modules, lexicon) is the longest wait at
  // the start of a run, and it runs while this one loads the rest of its modules, the configuration's
  // schema (zod, about 50 ms) and opens the index. So nothing else is imported before the pool: this
  // module's own imports are light. The Typesense client and the AI classifier load only when configured.
  const pool = createExtractionPool({
    workers: run.workers,
    timeoutMs: run.timeoutMs,
    maxMemoryMb: 512,
    maxBytes: run.maxBytes,
    efficiencyMode: !run.records?.length,
  });
  let index: DocumentIndex;
  let config: Readonly<Config>;
  const [{ SqliteIndex }, { ingest }, { analyzeQuery }, { classifyTopicByKeywords }] = await Promise.all([
    import('../index/sqlite/sqlite-index.ts'),
    import('../ingest/pipeline.ts'),
    import('../core/analysis/index.ts'),
    import('../ingest/topics/keyword-classifier.ts'),
  ]).catch(async (error: unknown) => {
    await pool.close();
    throw error;
  });
  try {
    config = (await import('./config.ts')).loadConfig({ data: run.dataDir });
    index =
      config.index.kind === 'sqlite'
        ? new SqliteIndex({ file: config.index.file, ftsThread: true })
        : await (await import('../index/typesense/open.ts')).openTypesenseIndex({ nodes: config.index.nodes, apiKey: config.index.apiKey, collection: 'web', create: true });
  } catch (error) {
    await pool.close();
    throw error;
  }
  // The head-term lists at the end analyse words in this process: its lexicon is loaded now, while
  // this process waits for the extraction processes to start, not at the end where nothing overlaps it.
  const warmUp = index instanceof SqliteIndex ? setTimeout(() => analyzeQuery('Aufwärmen'), 0) : undefined;
  const progress = createProgress(out, run.quiet);
  let poolClosed: Promise<void> | undefined;
  try {
    const classifyTopic = config.topicLlm
      ? (await import('../ingest/topics/llm-classifier.ts')).createLlmTopicClassifier({ ...config.topicLlm, fallback: classifyTopicByKeywords })
      : undefined;
    const summary = await ingest(progress.counted(inputs), {
      index,
      extract: (input) => progress.prepared(pool.extract(input)),
      prepare: (doc, url, options) => progress.prepared(pool.prepare(doc, url, options)),
      ...(classifyTopic && { classifyTopic }),
      maxBytes: run.maxBytes,
      // Documents in flight between reading and writing (written in input order): extracted, waiting
      // for or in preparation, prepared; the pipeline bounds the bytes files hold apart. At 4 per
      // process one large page held up the window and both processes stood idle behind it (corpus
      // HTML, medians of eight pairs: 372 → 392 docs/s).
      concurrency: run.workers * 16,
      onEvent: progress.onEvent,
    });
    // The extraction processes' memory is not needed for the merge: they end now, beside it (waiting
    // for their exit took 20–30 ms at the end of a small run).
    poolClosed = pool.close();
    if (index instanceof SqliteIndex) {
      progress.phase('optimizing the index (merge, score lists, head-term lists)');
      const started = performance.now();
      const built = await index.optimize();
      const lists = built.scoreLists ? `${built.scoreLists.lists} score lists in ${built.scoreLists.seconds.toFixed(1)} s, ` : '';
      progress.message(`optimized the index in ${((performance.now() - started) / 1000).toFixed(1)} s (${lists}${built.lists} head-term lists in ${built.seconds.toFixed(1)} s)`);
    }
    return summary;
  } finally {
    clearTimeout(warmUp);
    await progress.done();
    await (poolClosed ?? pool.close());
    await index.close();
  }
}

export async function ingestCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      data: { type: 'string' },
      manifest: { type: 'string', multiple: true },
      records: { type: 'string', multiple: true },
      'max-mb': { type: 'string', default: '50' },
      workers: { type: 'string', default: '2' },
      'timeout-ms': { type: 'string', default: '30000' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(INGEST_USAGE);
    return 0;
  }
  const positive = (name: string, value: string) => {
    const number = Number(value);
    if (!Number.isFinite(number) || number <= 0) throw new UsageError(`--${name}: must be a positive number, got "${value}"`);
    return number;
  };
  if (!values.data) throw new UsageError('--data: required (the data directory of the index)');
  if (positionals.length === 0 && !values.manifest?.length && !values.records?.length) throw new UsageError('nothing to ingest: give files, folders, --manifest FILE or --records FILE');
  const summary = await runIngest({
    dataDir: values.data,
    paths: positionals,
    manifests: values.manifest ?? [],
    records: values.records ?? [],
    maxBytes: Math.round(positive('max-mb', values['max-mb']) * 1024 * 1024),
    workers: Math.round(positive('workers', values.workers)),
    timeoutMs: positive('timeout-ms', values['timeout-ms']),
    quiet: values.quiet,
  });
  console.log(formatSummary(summary));
  // Bad files are skipped and the run succeeds; a path given on the command line that is not there is a failure.
  const missing = summary.skippedByReason.PATH_NOT_FOUND ?? 0;
  if (missing) console.error(`fundus ingest: ${missing} path${missing === 1 ? '' : 's'} given on the command line not found (PATH_NOT_FOUND)`);
  return missing ? 1 : 0;
}
