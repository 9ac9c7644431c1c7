// Shared helpers of the analysis benchmarks: where the German test corpus
// lives (../shared/corpus beside the repo, or FUNDUS_CORPUS) and a crude
// HTML-to-text that is good enough to feed the analyser.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CORPUS_DIR = process.env.FUNDUS_CORPUS ?? fileURLToPath(new URL('../../../shared/corpus/', import.meta.url));

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}

/** Tags, scripts, styles and entities removed; not a real HTML parser. */
export function stripHtml(html: string): string {
  return html
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&shy;/g, '\u00AD')
    .replace(/&[a-zA-Z]+;|&#\d+;/g, ' ');
}

/** Plain text of every HTML page in the corpus. */
export function corpusHtmlTexts(): string[] {
  return [...walk(join(CORPUS_DIR, 'html'))].map((path) => stripHtml(readFileSync(path, 'utf8')));
}

export interface TruthEntry {
  path: string;
  key_terms: string[];
  word_form_queries: string[];
  word_form_matches: Record<string, string>;
}

export function corpusTruth(): TruthEntry[] {
  return readFileSync(join(CORPUS_DIR, 'truth.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TruthEntry);
}
