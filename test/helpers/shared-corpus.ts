import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'vitest';
import { projectRoot } from '../../services/cli/paths.ts';

// The shared test corpus (real German documents with their ground truth) lives beside the
// repository, at ../shared/corpus; it is never copied into the project. A clone with nothing
// beside it still passes `npm test`: the suites that need the corpus skip, each saying so in one
// line. Nothing here reads the corpus at import time.

export const CORPUS = resolve(projectRoot(), '../shared/corpus');
export const hasCorpus = existsSync(join(CORPUS, 'truth.jsonl'));

const announced = new Set<string>();

function announceSkip(what: string): void {
  if (hasCorpus || announced.has(what)) return;
  announced.add(what);
  console.warn(`SKIPPED "${what}": needs the shared test corpus at ${CORPUS} (../shared/corpus beside the repository), which is absent`);
}

/** A describe block that needs the corpus: skipped, with one line saying why, when it is absent. */
export function describeWithCorpus(name: string, body: () => void): void {
  announceSkip(name);
  describe.skipIf(!hasCorpus)(name, body);
}

/** One test that needs the corpus inside a suite that does not. */
export function itWithCorpus(name: string, body: () => unknown, timeout?: number): void {
  announceSkip(name);
  it.skipIf(!hasCorpus)(name, body, timeout);
}

/** A file of the corpus by its path inside it (`html/...`, `broken/...`). */
export function corpusFile(path: string): string {
  return join(CORPUS, path);
}

/** Reads a JSONL file of the corpus (`truth.jsonl`, `manifest.jsonl`): call it inside a test or hook. */
export function readCorpusJsonl<T>(path: string): T[] {
  return readFileSync(join(CORPUS, path), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as T);
}

