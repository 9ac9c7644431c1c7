// In-process profile of the index's search path per query class, without HTTP or threads: for
// finding where a class's time goes while developing (the benchmark measures the whole service).
//
//   node_modules/.bin/node scripts/bench/profile-search.ts --index DIR/data/index.sqlite --queries DIR/sampled-queries.json [--rounds 5] [--memory-share 0.5]
//
// `--memory-share` gives the index the cache share one of the server's serving threads has
// (1 / threads). Besides times, it prints what the score lists read from their file per round
// from the third on: what the caches miss in a steady mix.
import { readFileSync } from 'node:fs';
import { toIndexQuery } from '../../services/core/use-cases/search.ts';
import { SqliteIndex } from '../../services/index/sqlite/sqlite-index.ts';
import type { BenchQuery } from './lib/http-load.ts';
import { round, summarize, table } from './lib/stats.ts';
import { scriptArgs } from './lib/args.ts';

const { values } = scriptArgs(import.meta.filename, { options: { index: { type: 'string' }, queries: { type: 'string' }, rounds: { type: 'string', default: '5' }, slowest: { type: 'string', default: '15' }, 'memory-share': { type: 'string', default: '1' } } });
const { queries } = JSON.parse(readFileSync(values.queries!, 'utf8')) as { queries: BenchQuery[] };
const index = new SqliteIndex({ file: values.index!, readOnly: true, memoryShare: Number(values['memory-share']) });
const prepared = queries.map(({ body }) =>
  toIndexQuery(
    { q: body.q, source: body.source, topic: body.topic, max_age_months: body.max_age_months, document_types: body.document_types as never },
    { limit: body.limit ?? 10, offset: body.offset ?? 0, order: 'relevance' },
    { countBudgetMs: 50 },
  ),
);
const timings = queries.map(() => [] as number[]);
const plans: string[] = [];
const blocks: string[] = [];
const rounds = Number(values.rounds);
let readBefore = 0;
for (let round = 0; round <= rounds; round++) {
  if (round === 2) readBefore = index.listBytesRead;
  prepared.forEach((query, i) => {
    if (!query) return;
    const started = performance.now();
    index.searchSync(query);
    if (round > 0) timings[i].push(performance.now() - started);
    plans[i] = index.lastPlan;
    const visited = index.lastBlocks;
    blocks[i] = visited ? `${visited.visited} (${visited.settled} settled)/${visited.blocks}` : '';
  });
}
const classes = [...new Set(queries.map((q) => q.class))];
console.log(
  table(
    ['class', 'min ms', 'p50 ms', 'p95 ms', 'max ms', 'plans'],
    classes.map((name) => {
      const members = queries.map((q, i) => (q.class === name ? i : -1)).filter((i) => i >= 0);
      const s = summarize(members.flatMap((i) => timings[i]));
      // The minimum of each query's rounds is what a quiet machine would give; p50 and above include waiting for a core.
      const minima = summarize(members.map((i) => Math.min(...timings[i])));
      return [name, minima.p50, s.p50, s.p95, s.max, [...new Set(members.map((i) => plans[i]))].join(',')];
    }),
  ),
);
const slowest = queries.map((q, i) => ({ q, i, min: Math.min(...timings[i]), p50: summarize(timings[i]).p50 })).sort((a, b) => b.min - a.min).slice(0, Number(values.slowest));
console.log(
  table(
    ['query', 'class', 'body', 'min ms', 'p50 ms', 'plan', 'blocks opened'],
    slowest.map(({ q, i, min, p50 }) => [q.id, q.class, JSON.stringify(q.body), round(min), p50, plans[i], blocks[i]]),
  ),
);
if (rounds > 2) console.log(`read from the lists file per round, from the third round on: ${((index.listBytesRead - readBefore) / 2 ** 20 / (rounds - 1)).toFixed(1)} MiB`);
await index.close();
