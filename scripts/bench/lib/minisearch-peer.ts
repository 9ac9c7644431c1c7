// The in-process JavaScript peer: MiniSearch over the same records as the index, run as its own
// process (so that its heap is measured alone):
//   node --expose-gc scripts/bench/lib/minisearch-peer.ts --records FILE --queries FILE --rounds N [--max-seconds S] [--only FILE]
// --queries holds the resolved mix (terms text, page, filters); --only lists the URLs to index
// (the index's primary documents, so that duplicates are collapsed alike). Prints JSON on stdout.
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import MiniSearch, { type SearchResult } from 'minisearch';

export interface PeerQuery {
  q: string;
  limit: number;
  offset: number;
  host: string | null;
  topic: string | null;
  documentTypes: string[] | null;
  minAgeDate: string | null;
}

export interface PeerOutput {
  documents: number;
  skippedDuplicates: number;
  buildSeconds: number;
  heapUsedBytes: number;
  rssBytes: number;
  timings: number[][];
  /** Per query: URLs of the first (at most) 10 hits of its page, and how many documents matched. */
  top: string[][];
  matched: number[];
}

interface PeerRecord {
  url: string;
  title: string;
  text: string;
  document_type: string;
  published_at: string | null;
  modified_at: string | null;
  topic: string | null;
}

interface Stored {
  document_type: string;
  host: string;
  topic: string | null;
  age_date: string | null;
}

const WORD_SEPARATOR = /[^\p{L}\p{N}]+/u;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      records: { type: 'string' },
      queries: { type: 'string' },
      rounds: { type: 'string', default: '10' },
      'max-seconds': { type: 'string', default: '90' },
      only: { type: 'string' },
    },
  });
  if (!values.records || !values.queries) throw new Error('--records and --queries are required');
  const queries = JSON.parse(readFileSync(values.queries, 'utf8')) as PeerQuery[];
  const only = values.only ? new Set(readFileSync(values.only, 'utf8').split('\n').filter(Boolean)) : null;

  const started = performance.now();
  const search = new MiniSearch<PeerRecord & Stored>({
    idField: 'url',
    fields: ['title', 'text'],
    storeFields: ['document_type', 'host', 'topic', 'age_date'],
    tokenize: (text) => text.split(WORD_SEPARATOR),
    processTerm: (term) => (term ? term.toLowerCase() : null),
    searchOptions: { combineWith: 'AND', prefix: false, fuzzy: false },
  });
  let documents = 0;
  let skippedDuplicates = 0;
  const lines = createInterface({ input: createReadStream(values.records, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line) continue;
    const record = JSON.parse(line) as PeerRecord;
    if (only && !only.has(record.url)) {
      skippedDuplicates++;
      continue;
    }
    const dates = [record.modified_at, record.published_at].filter((d): d is string => Boolean(d)).sort();
    search.add({ ...record, host: new URL(record.url).hostname, age_date: dates.at(-1) ?? null });
    documents++;
  }
  const buildSeconds = (performance.now() - started) / 1000;
  (globalThis as { gc?: () => void }).gc?.();
  const memory = process.memoryUsage();

  const filterOf = (q: PeerQuery) => {
    if (!q.host && !q.topic && !q.documentTypes && !q.minAgeDate) return undefined;
    return (hit: SearchResult) => {
      const stored = hit as unknown as Stored;
      if (q.host && stored.host !== q.host && !stored.host.endsWith(`.${q.host}`)) return false;
      if (q.topic && stored.topic?.trim().toLowerCase() !== q.topic.toLowerCase()) return false;
      if (q.documentTypes && !q.documentTypes.includes(stored.document_type)) return false;
      if (q.minAgeDate && (!stored.age_date || stored.age_date < q.minAgeDate)) return false;
      return true;
    };
  };
  const filters = queries.map(filterOf);
  const run = (q: PeerQuery, i: number) => {
    const all = search.search(q.q, { filter: filters[i] });
    return { page: all.slice(q.offset, q.offset + q.limit), matched: all.length };
  };
  const top: string[][] = [];
  const matched: number[] = [];
  queries.forEach((q, i) => {
    const { page, matched: n } = run(q, i); // warm-up pass, also the answers compared with ours
    top.push(page.slice(0, 10).map((hit) => String(hit.id)));
    matched.push(n);
  });
  const timings: number[][] = queries.map(() => []);
  const deadline = performance.now() + Number(values['max-seconds']) * 1000;
  for (let round = 0; round < Number(values.rounds) && (round === 0 || performance.now() < deadline); round++) {
    queries.forEach((q, i) => {
      const t = performance.now();
      run(q, i);
      timings[i].push(performance.now() - t);
    });
  }
  const output: PeerOutput = { documents, skippedDuplicates, buildSeconds, heapUsedBytes: memory.heapUsed, rssBytes: memory.rss, timings, top, matched };
  process.stdout.write(JSON.stringify(output));
}

await main();
