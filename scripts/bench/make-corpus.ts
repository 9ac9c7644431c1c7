// Builds a realistic German benchmark collection of N documents from the real documents in
// ../shared/corpus: their paragraphs recombined into new documents (so the real Zipf-like term
// distribution is kept), unique URLs over a few hundred domains, a realistic mix of types, dates
// (a third undated), exact duplicates and near-duplicates. Deterministic for a seed. Never committed.
//
//   node_modules/.bin/node scripts/bench/make-corpus.ts --docs 100000 --out /tmp/fundus-100k [--seed 1] [--html 2000]
//
// Writes DIR/records.jsonl (pre-extracted records for `fundus ingest --records`) and, with --html N,
// N of them as HTML files with DIR/html/manifest.jsonl for end-to-end ingestion.
import { createWriteStream, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { mulberry32 } from './lib/random.ts';
import { scriptArgs } from './lib/args.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const CORPUS = resolve(ROOT, '../shared/corpus/html');
const { values } = scriptArgs(import.meta.filename, {
  options: { docs: { type: 'string', default: '10000' }, out: { type: 'string' }, seed: { type: 'string', default: '1' }, html: { type: 'string', default: '0' } },
});
if (!values.out) throw new Error('--out DIR is required');
const N = Number(values.docs);
const OUT = resolve(values.out);

const random = mulberry32(Number(values.seed));
const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)];
/** Zipf-like rank: small ranks much more often than large ones. */
const zipf = (n: number) => Math.min(n - 1, Math.floor(Math.exp(random() * Math.log(n + 1))) - 1);

function decode(text: string): string {
  return text
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#(\d+);/g, (_, n) => String.fromCodePoint(Number(n)))
    .replace(/&[a-z]+;/g, ' ');
}

function paragraphsOf(html: string): string[] {
  const body = html.replace(/<(script|style|nav|header|footer)[\s\S]*?<\/\1>/gi, ' ');
  const found: string[] = [];
  for (const match of body.matchAll(/<(p|li|dd|td|h[1-4])\b[^>]*>([\s\S]*?)<\/\1>/gi)) {
    const text = decode(match[2].replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ').trim();
    if (text.length >= 40 && /[a-zäöüß]{3}/i.test(text)) found.push(text);
  }
  return found;
}

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (/\.html?$/.test(name)) yield path;
  }
}

const paragraphs: string[] = [];
for (const file of walk(CORPUS)) paragraphs.push(...paragraphsOf(readFileSync(file, 'utf8')));
// Shuffle once so that Zipf ranks do not follow the corpus's folder order.
for (let i = paragraphs.length - 1; i > 0; i--) {
  const j = Math.floor(random() * (i + 1));
  [paragraphs[i], paragraphs[j]] = [paragraphs[j], paragraphs[i]];
}

const WORDS = ['stadt', 'verein', 'amt', 'zeitung', 'bibliothek', 'hochschule', 'klinik', 'verlag', 'archiv', 'forum', 'netz', 'portal'];
const PLACES = ['lindenau', 'altmark', 'bergheim', 'seefeld', 'nordhafen', 'rosenthal', 'eichwalde', 'talbach', 'kirchdorf', 'wiesental', 'steinau', 'birkenfeld'];
const TLDS = ['de', 'de', 'de', 'at', 'ch', 'org', 'example'];
const DOMAINS = Array.from({ length: 320 }, (_, i) => `${WORDS[i % WORDS.length]}-${PLACES[Math.floor(i / WORDS.length) % PLACES.length]}${i >= 144 ? i : ''}.${TLDS[i % TLDS.length]}`);
const SUBDOMAINS = ['www', 'www', 'www', 'blog', 'service', 'docs'];
const TYPES: [string, number][] = [['html', 0.84], ['pdf', 0.07], ['docx', 0.03], ['doc', 0.03], ['odt', 0.03]];
const TOPICS = ['Politik', 'Recht', 'Wirtschaft', 'Verkehr', 'Umwelt', 'Gesundheit', 'Bildung', 'Technik', 'Kultur', null, null, null];

function documentType(): string {
  let x = random();
  for (const [type, share] of TYPES) {
    if ((x -= share) <= 0) return type;
  }
  return 'html';
}

function isoDay(daysAgo: number): string {
  return new Date(Date.UTC(2026, 10, 20) - daysAgo * 86_400_000).toISOString().slice(0, 10);
}

interface BenchRecord {
  url: string;
  title: string;
  text: string;
  document_type: string;
  published_at: string | null;
  modified_at: string | null;
  fetched_at: string;
  topic: string | null;
  news: boolean;
}

function makeRecord(i: number): BenchRecord {
  const count = 3 + zipf(40);
  const parts = Array.from({ length: count }, () => paragraphs[zipf(paragraphs.length)]);
  const title = parts[0].split(/(?<=[.!?:])\s/)[0].slice(0, 90);
  const domain = DOMAINS[zipf(DOMAINS.length)];
  const type = documentType();
  const dated = random() < 0.67;
  const published = dated ? isoDay(Math.floor(random() * 9000)) : null;
  const modified = dated && random() < 0.4 ? isoDay(Math.floor(random() * 400)) : null;
  return {
    url: `https://${pick(SUBDOMAINS)}.${domain}/${type === 'html' ? 'seite' : 'dokumente'}/${i.toString(36)}.${type}`,
    title,
    text: parts.join('\n\n'),
    document_type: type,
    published_at: published,
    modified_at: modified,
    fetched_at: `${isoDay(Math.floor(random() * 30))}T${String(Math.floor(random() * 24)).padStart(2, '0')}:00:00Z`,
    topic: pick(TOPICS),
    news: type === 'html' && dated && random() < 0.08,
  };
}

mkdirSync(OUT, { recursive: true });
const out = createWriteStream(join(OUT, 'records.jsonl'));
const htmlCount = Math.min(Number(values.html), N);
const manifest: string[] = [];
if (htmlCount) mkdirSync(join(OUT, 'html'), { recursive: true });
const recent: BenchRecord[] = [];
let duplicates = 0;
let nearDuplicates = 0;
for (let i = 0; i < N; i++) {
  let record = makeRecord(i);
  const roll = random();
  if (recent.length && roll < 0.01) {
    record = { ...pick(recent), url: record.url }; // the same document under a second URL
    duplicates++;
  } else if (recent.length && roll < 0.02) {
    const base = pick(recent);
    record = { ...base, url: record.url, text: `${base.text}\n\nDokument abgerufen am ${isoDay(i % 300)}.` };
    nearDuplicates++;
  }
  if (recent.length < 2000) recent.push(record);
  else recent[i % 2000] = record;
  if (!out.write(`${JSON.stringify(record)}\n`)) await new Promise<void>((r) => out.once("drain", () => r()));
  if (i < htmlCount) {
    const name = `${i}.html`;
    const html = `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>${record.title}</title>${record.published_at ? `<meta property="article:published_time" content="${record.published_at}">` : ''}</head><body><nav><a href="/">Start</a> · <a href="/kontakt">Kontakt</a></nav><main><h1>${record.title}</h1>${record.text.split('\n\n').map((p) => `<p>${p.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</p>`).join('')}</main><footer>Impressum · Datenschutz</footer></body></html>`;
    writeFileSync(join(OUT, 'html', name), html);
    manifest.push(JSON.stringify({ path: name, url: record.url.replace(/\.\w+$/, '.html'), fetched_at: record.fetched_at, headers: { 'content-type': 'text/html; charset=utf-8' } }));
  }
}
await new Promise<void>((r) => out.end(r));
if (htmlCount) writeFileSync(join(OUT, 'html', 'manifest.jsonl'), `${manifest.join('\n')}\n`);
console.log(JSON.stringify({ documents: N, paragraphs: paragraphs.length, domains: DOMAINS.length, duplicates, nearDuplicates, html: htmlCount, out: OUT }));
