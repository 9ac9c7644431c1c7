import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashOf } from '../../services/core/analysis/word-table.ts';
import {
  buildLexicon, lexiconFlags, MAY_START, PREFIX_LENGTH, readHunspellWords, readLexiconWords, readPackedLexicon, writePackedLexicon,
} from '../../services/core/analysis/lexicon.ts';

// The packed lexicon (written by `npm run build`, read by every process) must answer every question
// exactly as the lexicon built from the word lists does, and both as the map of strings to flags
// they are made from: the table keeps no keys, only their hashes and signatures.
describe('packed lexicon', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fundus-lexicon-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'lexicon-test.bin');
  writePackedLexicon(file);
  const packed = readPackedLexicon(file)!;
  const built = buildLexicon();

  it('gives the same flags for every word of the lists, each of its prefixes and a few strings that are no entry', () => {
    expect(packed).toBeDefined();
    expect(packed.longest).toBe(built.longest);
    const hunspell = readHunspellWords();
    const words = [...readLexiconWords(), ...hunspell.nouns];
    const exact = lexiconFlags(words, hunspell.modifiers).flags;
    const truth = (s: string) => (exact.get(s) ?? 0) | (s.length > PREFIX_LENGTH ? MAY_START : 0);
    let differ = 0;
    let asked = 0;
    let known = 0;
    for (const word of [...words, ...hunspell.modifiers, 'schulweg', 'orchester', 'xyzzy', 'straße', '']) {
      for (let end = 0; end <= word.length; end++) {
        // Prefixes, prefixes with a letter more, suffixes and inner pieces: mostly no key.
        for (const s of [word.slice(0, end), `${word.slice(0, end)}s`, word.slice(end), word.slice(1, end)]) {
          asked++;
          if (exact.has(s)) known++;
          if (packed.stemFlags(s) !== truth(s) || built.stemFlags(s) !== truth(s) || packed.has(s) !== built.has(s) || packed.mayStart(s) !== built.mayStart(s)) differ++;
        }
      }
    }
    expect(asked).toBeGreaterThan(1_000_000);
    expect(known).toBeGreaterThan(100_000);
    expect(asked - known).toBeGreaterThan(500_000);
    expect(differ).toBe(0);
    const piece = hashOf('schul');
    expect(packed.flagsAt('die schulwegpläne', 4, 9, piece)).toBe(built.flagsAt('die schulwegpläne', 4, 9, piece));
    expect(packed.flagsAt('die schulwegpläne', 4, 9, piece)).not.toBe(0);
  });

  it('is not used when the file is damaged or absent (the lexicon is then built)', () => {
    const truncated = join(dir, 'truncated.bin');
    writeFileSync(truncated, readFileSync(file).subarray(0, 1000));
    expect(readPackedLexicon(truncated)).toBeUndefined();
    const garbage = join(dir, 'garbage.bin');
    writeFileSync(garbage, Buffer.alloc(64, 7));
    expect(readPackedLexicon(garbage)).toBeUndefined();
    expect(readPackedLexicon(join(dir, 'absent.bin'))).toBeUndefined();
  });
});
