// HTML extraction alone, in this process, on the HTML files of ../shared/corpus: a fingerprint of every
// extracted document (SHA-256 of its JSON) and the time of one pass. For changes that must keep the
// output: run it before and after (or with --fundus on an older checkout) and compare the fingerprints.
// --all takes every file of the corpus (PDF, DOC, DOCX, ODT and the broken ones too).
//   node_modules/.bin/node scripts/bench/extract-html.ts [--fundus DIR] [--hashes FILE] [--repeat N] [--all]
// Runs the TypeScript sources (Node strips the types), so no build is needed.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { scriptArgs } from './lib/args.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const CORPUS = resolve(ROOT, '../shared/corpus');
const { values } = scriptArgs(import.meta.filename, { options: { fundus: { type: 'string' }, hashes: { type: 'string' }, all: { type: 'boolean', default: false }, repeat: { type: 'string', default: '3' } } });
const checkout = values.fundus ? resolve(values.fundus) : ROOT;
const { extractDocument } = (await import(join(checkout, 'services/ingest/extract/extract-document.ts'))) as typeof import('../../services/ingest/extract/extract-document.ts');

interface ManifestLine { path: string; url: string; headers?: Record<string, string> }
const files = readFileSync(join(CORPUS, 'manifest.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as ManifestLine)
  .filter((l) => values.all || l.path.startsWith('html/'))
  .map((l) => ({ ...l, bytes: new Uint8Array(readFileSync(join(CORPUS, l.path))) }));

/** The file name the ingestion pipeline passes (pipeline.ts): the URL's last path segment. */
function fileNameOf(url: string): string | undefined {
  return decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || undefined;
}

async function pass(): Promise<string[]> {
  const lines: string[] = [];
  for (const f of files) {
    let result: unknown;
    try {
      result = await extractDocument({ bytes: f.bytes, url: f.url, fileName: fileNameOf(f.url), headers: f.headers });
    } catch (error) {
      const e = error as { code?: string; message?: string };
      result = { error: e.code ?? 'ERROR', message: e.message };
    }
    lines.push(`${createHash('sha256').update(JSON.stringify(result)).digest('hex')}  ${f.path}`);
  }
  return lines;
}

const startCpu = process.cpuUsage();
const first = await pass();
const firstCpu = process.cpuUsage(startCpu);
const timings = [`first pass ${((firstCpu.user + firstCpu.system) / 1e6).toFixed(2)} CPU s`];
for (let i = 1; i < Number(values.repeat); i++) {
  const before = process.cpuUsage();
  const lines = await pass();
  const used = process.cpuUsage(before);
  timings.push(`${((used.user + used.system) / 1e6).toFixed(2)}`);
  if (lines.join('\n') !== first.join('\n')) throw new Error('a later pass extracted something else than the first');
}
if (values.hashes) writeFileSync(values.hashes, `${first.join('\n')}\n`);
const all = createHash('sha256').update(first.join('\n')).digest('hex');
console.log(`${files.length} ${values.all ? '' : 'HTML '}files from ${checkout}; all fingerprints ${all.slice(0, 16)}; ${timings.join(', ')}`);
