// CPU that an extraction process spends preparing one document for the index (prepareForIndex:
// German analysis of title and text, fingerprint, content hash, title key, identity, topic), in
// process, without extraction or IPC. CPU time (process.cpuUsage), not wall time: the machine is
// shared. Run one process per measurement and interleave the variants you compare.
//
//   node_modules/.bin/node scripts/bench/prepare.ts --records FILE [--warm 5000] [--count 20000]
//     pre-extracted records (JSON lines, as `fundus ingest --records`): the first `warm` records
//     fill the word caches unmeasured, the next `count` are measured (the steady state of a long run);
//   node_modules/.bin/node scripts/bench/prepare.ts --html [--stages]
//     the corpus HTML pages (../shared/corpus), extracted first, then prepared once each with cold
//     caches (as in an extraction process that meets a page's words for the first time).
// --stages also times each step of the preparation separately (a second pass, same documents).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { analyzeForIndex } from '../../services/core/analysis/index.ts';
import type { ExtractedDocument } from '../../services/core/document.ts';
import { contentHashOf, contentOf, fingerprintOf, titleKeyOf } from '../../services/core/text.ts';
import { identityOf } from '../../services/ingest/build-document.ts';
import { extractHtml } from '../../services/ingest/extract/html.ts';
import { prepareForIndex } from '../../services/ingest/prepare.ts';
import { scoreTopicsOfBases } from '../../services/ingest/topics/keyword-classifier.ts';
import { CORPUS_DIR } from './analysis-corpus.ts';
import { scriptArgs } from './lib/args.ts';

const { values } = scriptArgs(import.meta.filename, {
  options: {
    records: { type: 'string' },
    html: { type: 'boolean', default: false },
    warm: { type: 'string', default: '5000' },
    count: { type: 'string', default: '20000' },
    stages: { type: 'boolean', default: false },
  },
});

interface Input { url: string; doc: ExtractedDocument; topic: boolean }

function documentOf(title: string, text: string, canonicalUrl: string | null): ExtractedDocument {
  return {
    documentType: 'html', contentType: 'text/html', title, text, language: null, canonicalUrl, publishedAt: null,
    modifiedAt: null, contentDate: null, dates: {}, isNews: false, noindex: false, content: {},
  };
}

function recordInputs(file: string, skip: number, count: number): Input[] {
  const inputs: Input[] = [];
  let line = 0;
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    if (!text.trim() || line++ < skip) continue;
    if (inputs.length >= count) break;
    const r = JSON.parse(text) as { url: string; title: string; text: string; canonical_url?: string | null; topic?: string | null };
    // A record that brings its topic is not classified (as in the extraction worker).
    inputs.push({ url: r.url, doc: documentOf(r.title, r.text, r.canonical_url ?? null), topic: !r.topic });
  }
  return inputs;
}

function htmlInputs(): Input[] {
  const inputs: Input[] = [];
  for (const line of readFileSync(join(CORPUS_DIR, 'manifest.jsonl'), 'utf8').split('\n')) {
    if (!line) continue;
    const m = JSON.parse(line) as { path: string; url: string; headers?: Record<string, string> };
    if (!m.path.startsWith('html/')) continue;
    try {
      const doc = extractHtml({ bytes: readFileSync(join(CORPUS_DIR, m.path)), url: m.url, headers: m.headers });
      inputs.push({ url: m.url, doc: documentOf(doc.title, doc.text, doc.canonicalUrl), topic: true });
    } catch {
      // Pages without text are skipped by ingestion too.
    }
  }
  return inputs;
}

function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** Documents per measured batch: the CPU clock is read per batch (a read costs microseconds itself). */
const BATCH = 64;

/**
 * CPU µs per input of `step`, and of sending its result as the worker does (v8.serialize of the
 * advanced IPC channel, which also flattens the strings built piecewise), in batches as the worker
 * sends them; a digest of the results (as JSON, outside the measured time) to compare variants.
 */
function measure(inputs: readonly Input[], step: (input: Input) => unknown): { perDoc: number; sendPerDoc: number; digest: string } {
  const hash = createHash('sha256');
  let stepMicros = 0;
  let sendMicros = 0;
  for (let from = 0; from < inputs.length; from += BATCH) {
    const batch = inputs.slice(from, from + BATCH);
    const started = cpuMicros();
    const results = batch.map(step);
    const stepped = cpuMicros();
    serialize(results);
    sendMicros += cpuMicros() - stepped;
    stepMicros += stepped - started;
    for (const result of results) hash.update(JSON.stringify(result) ?? 'undefined');
  }
  return { perDoc: stepMicros / inputs.length, sendPerDoc: sendMicros / inputs.length, digest: hash.digest('hex').slice(0, 16) };
}

const prepare = (input: Input): unknown => prepareForIndex(input.doc, input.url, { topic: input.topic });

let inputs: Input[];
// As the extraction worker does before it says it is ready: the lexicon is loaded, the code compiled.
prepareForIndex(documentOf('Aufwärmen', 'Die Schulwegpläne der Häuser sind fertig.', null), 'https://warm-up.invalid/');
if (values.html) {
  inputs = htmlInputs();
  console.log(`${inputs.length} HTML pages of ${CORPUS_DIR}, cold caches`);
} else if (values.records) {
  const warm = Number(values.warm);
  const warmInputs = recordInputs(values.records, 0, warm);
  inputs = recordInputs(values.records, warm, Number(values.count));
  measure(warmInputs, prepare);
  console.log(`${inputs.length} records of ${values.records} after ${warmInputs.length} unmeasured`);
} else {
  throw new Error('give --records FILE or --html');
}
const chars = inputs.reduce((sum, input) => sum + input.doc.title.length + input.doc.text.length, 0);
const whole = measure(inputs, prepare);
console.log(
  `prepareForIndex: ${whole.perDoc.toFixed(1)} µs CPU per document (${(chars / inputs.length).toFixed(0)} chars each), ` +
    `its reply's serialisation ${whole.sendPerDoc.toFixed(1)} µs, digest ${whole.digest}`,
);

if (values.stages) {
  const stages: [string, (input: Input) => unknown][] = [
    ['analyzeForIndex title+text', (i) => [analyzeForIndex(i.doc.title), analyzeForIndex(i.doc.text)]],
    ['fingerprintOf', (i) => fingerprintOf(i.doc.text)],
    ['contentHashOf', (i) => contentHashOf(contentOf(i.doc.title.trim(), i.doc.text))],
    ['titleKeyOf', (i) => titleKeyOf(i.doc.title)],
    ['identityOf', (i) => identityOf(i.url, i.doc.canonicalUrl)],
  ];
  const bases = inputs.map((i) => [analyzeForIndex(i.doc.title).base, analyzeForIndex(i.doc.text).base] as const);
  let at = 0;
  stages.push(['scoreTopicsOfBases', () => scoreTopicsOfBases(bases[at][0], bases[at++][1])]);
  for (const [name, step] of stages) console.log(`  ${name.padEnd(28)} ${measure(inputs, step).perDoc.toFixed(1)} µs`);
}
