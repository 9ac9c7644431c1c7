// The sampled query mix of the search benchmark: drawn from the collection itself with a seed, so
// that the engine is measured on queries nobody chose by hand, and drawn again for every
// collection size (a word that is rare at 10k is mid-frequency at 1M). Beside the fixed mix
// (queries.json), search.ts runs this one in the same server session.
//
//   node_modules/.bin/node scripts/bench/sample-queries.ts --index DIR/data/index.sqlite [--seed 1] [--out FILE]
//
// Classes (the sizes of the independent mix): 10 very common words (in ≥ 5 % of the
// documents), 20 mid-frequency words (0.1 % to 1 %), 20 rare words (too rare for a score list),
// 50 word pairs and 20 triples (neighbouring words of random documents), 15 filtered queries (a
// word of a random document with that document's source, type, topic or an age limit), 5 deep
// pages (a common word at offsets up to 9950). Frequencies come from the index's score lists.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { analyzeQuery } from '../../services/core/analysis/index.ts';
import { ScoreLists, scoreListsFile } from '../../services/index/sqlite/score-lists.ts';
import type { BenchQuery } from './lib/http-load.ts';
import { mulberry32 } from './lib/random.ts';
import { scriptArgs } from './lib/args.ts';

export const SAMPLED_CLASSES = { common: 10, mid: 20, rare: 20, pair: 50, triple: 20, filter: 15, deep: 5 } as const;

export interface SampledMix {
  description: string;
  seed: number;
  documents: number;
  queries: (BenchQuery & { documents?: number })[];
}

/** Whole words of letters only: a token with a broken character in it ("k�nnen") is no word anyone types. */
const WORD = /^\p{L}{3,}$/u;
const EDGE_PUNCTUATION = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

interface Row {
  seq: number;
  host: string;
  document_type: string;
  topic: string | null;
  age_date: string | null;
  title: string;
  text: string;
}

export function sampleQueries(indexFile: string, seed: number): SampledMix {
  const random = mulberry32(seed * 7919 + 17);
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
  const lists = ScoreLists.open(scoreListsFile(indexFile));
  if (!lists) throw new Error(`no score lists beside ${indexFile}: ingest the collection first`);
  const db = new DatabaseSync(indexFile, { readOnly: true });
  try {
    const documents = Number((db.prepare('SELECT count(*) AS n FROM documents WHERE duplicate_of IS NULL').get() as { n: number }).n);
    const maxSeq = Number((db.prepare('SELECT max(seq) AS m FROM documents').get() as { m: number }).m);
    const bySeq = db.prepare('SELECT seq, host, document_type, topic, age_date, title, text FROM documents WHERE seq >= ? AND duplicate_of IS NULL ORDER BY seq LIMIT 1');
    const randomDocument = (): Row => (bySeq.get(1 + Math.floor(random() * maxSeq)) ?? bySeq.get(0)) as unknown as Row;
    /** Documents with the word's exact form (null: fewer than a score list needs), and whether the query analyses it as one word. */
    const frequency = (word: string): { one: boolean; documents: number | null } => {
      const terms = analyzeQuery(word);
      return { one: terms.length === 1, documents: terms.length === 1 ? lists.documentsOf('exact', terms[0].exact) : null };
    };
    const wordsOf = (row: Row) =>
      `${row.title} ${row.text}`
        .split(/\s+/)
        .map((token) => token.replace(EDGE_PUNCTUATION, ''))
        .filter((word) => WORD.test(word));

    // Frequency bands over the distinct words of random documents: every distinct word is as
    // likely as another (drawing by occurrence would give "der" and "die" most of the time).
    const bands = { common: new Set<string>(), mid: new Set<string>(), rare: new Set<string>() };
    const seen = new Set<string>();
    for (let d = 0; d < 4000 && (bands.common.size < 40 || bands.mid.size < 80 || bands.rare.size < 80); d++) {
      for (const word of wordsOf(randomDocument())) {
        const key = word.toLowerCase();
        if (seen.has(key)) continue;
        seen.add(key);
        const { one, documents: n } = frequency(word);
        if (!one) continue;
        if (n === null) {
          if (word.length >= 5) bands.rare.add(key);
        } else if (n >= documents * 0.05) bands.common.add(key);
        else if (n >= documents * 0.001 && n <= documents * 0.01) bands.mid.add(key);
      }
    }
    const draw = (band: Set<string>, n: number): string[] => {
      const pool = [...band].sort();
      const out: string[] = [];
      while (out.length < n && pool.length) out.push(pool.splice(Math.floor(random() * pool.length), 1)[0]);
      return out;
    };
    const queries: SampledMix['queries'] = [];
    const add = (cls: string, body: BenchQuery['body']) => {
      const id = `${cls}-${queries.filter((q) => q.class === cls).length + 1}`;
      const terms = analyzeQuery(body.q);
      const n = terms.length === 1 ? lists.documentsOf('exact', terms[0].exact) : null;
      queries.push({ id, class: cls, body, ...(n !== null ? { documents: n } : {}) });
    };
    for (const word of draw(bands.common, SAMPLED_CLASSES.common)) add('common', { q: word });
    for (const word of draw(bands.mid, SAMPLED_CLASSES.mid)) add('mid', { q: word });
    for (const word of draw(bands.rare, SAMPLED_CLASSES.rare)) add('rare', { q: word });

    // Pairs and triples: neighbouring words (within a window of five) of a random document, as
    // someone would type them after reading it: stop words included, all different words.
    const neighbours = (size: number): string | null => {
      const words = wordsOf(randomDocument());
      if (words.length < size + 5) return null;
      const start = Math.floor(random() * (words.length - size - 5));
      const chosen: string[] = [];
      for (let i = start; i < start + 5 + size && chosen.length < size; i++) {
        if (random() < 0.3) continue; // not always the very next word
        if (!chosen.some((w) => w.toLowerCase() === words[i].toLowerCase()) && frequency(words[i]).one) chosen.push(words[i]);
      }
      return chosen.length === size ? chosen.join(' ') : null;
    };
    for (const [cls, size, n] of [['pair', 2, SAMPLED_CLASSES.pair], ['triple', 3, SAMPLED_CLASSES.triple]] as const) {
      for (let tries = 0, made = 0; made < n && tries < n * 20; tries++) {
        const q = neighbours(size);
        if (q) {
          add(cls, { q });
          made++;
        }
      }
    }

    // Filtered: a word of a random document (not a stop word: in at most 5 % of the documents)
    // with one or two of that document's own attributes, so that the answer is rarely empty.
    const ages = [3, 12, 24, 60];
    for (let tries = 0, made = 0; made < SAMPLED_CLASSES.filter && tries < 400; tries++) {
      const row = randomDocument();
      const candidates = wordsOf(row).filter((w) => {
        const { one, documents: n } = frequency(w);
        return one && n !== null && n < documents * 0.05;
      });
      if (!candidates.length) continue;
      const body: BenchQuery['body'] = { q: pick(candidates) };
      const kind = made % 5;
      if (kind === 0) body.source = row.host;
      else if (kind === 1) body.document_types = [row.document_type];
      else if (kind === 2) {
        if (!row.topic) continue;
        body.topic = row.topic;
      } else if (kind === 3) body.max_age_months = pick(ages);
      else {
        body.document_types = [row.document_type];
        body.max_age_months = pick(ages);
        if (random() < 0.5) body.source = row.host;
      }
      add('filter', body);
      made++;
    }

    // Deep pages of very common words.
    const offsets = [100, 500, 1000, 5000, 9950];
    const deepWords = draw(bands.common, SAMPLED_CLASSES.deep);
    offsets.slice(0, deepWords.length).forEach((offset, i) => add('deep', { q: deepWords[i], offset, limit: i % 2 ? 50 : 10 }));

    return {
      description:
        `Sampled from the collection (seed ${seed}, ${documents} searchable documents) by scripts/bench/sample-queries.ts: ` +
        'very common words (≥ 5 % of documents), mid-frequency words (0.1–1 %), rare words (no score list), neighbouring word pairs and triples of random documents, ' +
        "a word of a random document filtered by that document's source, type, topic or an age limit, deep pages of common words.",
      seed,
      documents,
      queries,
    };
  } finally {
    db.close();
    lists.close();
  }
}

if (import.meta.main) {
  const { values } = scriptArgs(import.meta.filename, { options: { index: { type: 'string' }, seed: { type: 'string', default: '1' }, out: { type: 'string' } } });
  if (!values.index) throw new Error('--index FILE is required');
  const mix = sampleQueries(resolve(values.index), Number(values.seed));
  const json = JSON.stringify(mix, null, 1);
  if (values.out) writeFileSync(values.out, json);
  else process.stdout.write(`${json}\n`);
}
