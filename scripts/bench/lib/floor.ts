// The floor: the same SQLite FTS5 queries the service runs, issued in-process with node:sqlite on
// the same file, read-only, without HTTP, query analysis (done before timing), document reads,
// snippets, match types or counting. MATCH strings come from the service's own code.
import type { DatabaseSync } from 'node:sqlite';
import { openIndexReader } from '../../../services/index/sqlite/fts-file.ts';
import { toIndexQuery } from '../../../services/core/use-cases/search.ts';
import { buildMatch } from '../../../services/index/sqlite/fts-query.ts';
import { READ_PRAGMAS } from '../../../services/index/sqlite/sqlite-index.ts';
import type { BenchQuery } from './http-load.ts';

export interface FloorQuery {
  match: string | null;
  minAgeDate: string | null;
  limit: number;
  offset: number;
}

export interface FloorRun {
  /** Per query: the timings in ms of every round. */
  timings: number[][];
  /** Per query: rows returned by the first round. */
  rows: number[];
  /** Per query: the first ten row ids of the first round, in order. */
  top: number[][];
  /** Full count(*) of the match, timed, for the classes whose `total` the service counts. */
  counts: { query: number; n: number; ms: number[] }[];
  pragmas: string;
  ageFilter: 'join' | 'dropped';
}

/** What the service would ask the index for: the FTS5 MATCH string and the page. */
export function floorQueries(queries: BenchQuery[]): FloorQuery[] {
  return queries.map(({ body }) => {
    const limit = body.limit ?? 10;
    const offset = body.offset ?? 0;
    const query = toIndexQuery(
      { q: body.q, source: body.source, topic: body.topic, max_age_months: body.max_age_months, document_types: body.document_types as never },
      { limit, offset, order: 'relevance' },
      { countBudgetMs: 0 },
    );
    return { match: query ? buildMatch(query) : null, minAgeDate: query?.minAgeDate ?? null, limit, offset };
  });
}

/** `rounds` passes over the mix (at least one), fewer when `maxSeconds` have passed. */
export function runFloor(indexFile: string, queries: BenchQuery[], options: { rounds: number; maxSeconds: number; countRounds: number; countClasses: string[] }): FloorRun {
  const prepared = floorQueries(queries);
  const db = openIndexReader(indexFile);
  // The service's read settings, so that the floor is the same engine configured the same way.
  const pragmas = READ_PRAGMAS;
  db.exec(pragmas);
  const plain = db.prepare('SELECT rowid FROM documents_fts WHERE documents_fts MATCH ? ORDER BY rank LIMIT ? OFFSET ?');
  let aged: ReturnType<DatabaseSync['prepare']> | null = null;
  try {
    aged = db.prepare(
      'SELECT f.rowid FROM documents_fts f JOIN documents d ON d.seq = f.rowid WHERE documents_fts MATCH ? AND d.age_date >= ? ORDER BY f.rank LIMIT ? OFFSET ?',
    );
  } catch {
    aged = null; // the documents table changed: the age filter is left out of the floor (said in the report)
  }
  const counter = db.prepare('SELECT count(*) AS n FROM documents_fts WHERE documents_fts MATCH ?');
  const run = (q: FloorQuery): unknown[] => {
    if (q.match === null) return [];
    if (q.minAgeDate && aged) return aged.all(q.match, q.minAgeDate, q.limit, q.offset);
    return plain.all(q.match, q.limit, q.offset);
  };
  const timings: number[][] = prepared.map(() => []);
  const rows: number[] = prepared.map(() => 0);
  const top: number[][] = prepared.map(() => []);
  try {
    for (const q of prepared) run(q); // one warm-up pass
    const deadline = performance.now() + options.maxSeconds * 1000;
    for (let round = 0; round < options.rounds && (round === 0 || performance.now() < deadline); round++) {
      prepared.forEach((q, i) => {
        const started = performance.now();
        const result = run(q);
        timings[i].push(performance.now() - started);
        if (round === 0) {
          rows[i] = result.length;
          top[i] = (result as { rowid: number }[]).slice(0, 10).map((row) => row.rowid);
        }
      });
    }
    const counts: FloorRun['counts'] = [];
    prepared.forEach((q, i) => {
      if (!q.match || !options.countClasses.includes(queries[i].class)) return;
      const entry = { query: i, n: 0, ms: [] as number[] };
      for (let round = 0; round < options.countRounds; round++) {
        const started = performance.now();
        entry.n = Number((counter.get(q.match) as { n: number }).n);
        entry.ms.push(performance.now() - started);
      }
      counts.push(entry);
    });
    return { timings, rows, top, counts, pragmas, ageFilter: aged ? 'join' : 'dropped' };
  } finally {
    db.close();
  }
}
