import { describe, expect, it } from 'vitest';
import { analyzeQuery } from '../../services/core/analysis/index.ts';
import { makeSnippet, SNIPPET_LENGTH } from '../../services/core/snippet.ts';

// Snippets are found in the raw text and only their window is normalised (snippet.ts): these
// check what a reader sees — collapsed whitespace, the matched words, honest ellipses.
const filler = (words: number) => Array.from({ length: words }, (_, i) => `Fülltext${i}`).join(' \n\t ');

describe('makeSnippet', () => {
  it('collapses the whitespace of the window and keeps the matched word forms', () => {
    const snippet = makeSnippet('Erste Zeile.\n\n\tZweite   Zeile über die Gärten\r\nder Stadt.', analyzeQuery('Garten'));
    expect(snippet).toBe('Erste Zeile. Zweite Zeile über die Gärten der Stadt.');
  });

  it('turns every lone whitespace character but a space into a space too (tab, line break, no-break space)', () => {
    const snippet = makeSnippet('Die\tGärten\nder\u00a0Stadt\u2003liegen \u00a0 am Fluss.', analyzeQuery('Garten'));
    expect(snippet).toBe('Die Gärten der Stadt liegen am Fluss.');
  });

  it('starts a little before a match deep in the text, at a word start, with ellipses on both sides', () => {
    const text = `${filler(200)} Der Antrag auf Förderung ist bis Ende März zu stellen. ${filler(200)}`;
    const snippet = makeSnippet(text, analyzeQuery('Förderung'));
    expect(snippet.startsWith('…Fülltext')).toBe(true);
    expect(snippet.endsWith(' …')).toBe(true);
    expect(snippet).toContain('Der Antrag auf Förderung ist bis Ende März zu stellen.');
    expect(snippet).not.toMatch(/\s\s|[\n\t]/);
    // 240 characters and the rest of the last word, plus the two ellipses.
    expect(snippet.length).toBeLessThanOrEqual(SNIPPET_LENGTH + 30 + 3);
    expect(snippet.length).toBeGreaterThan(SNIPPET_LENGTH - 30);
    // The lead before the match counts collapsed whitespace as one character: about 60 characters.
    const lead = snippet.indexOf('Der Antrag') - 1;
    expect(lead).toBeGreaterThan(40);
    expect(lead).toBeLessThanOrEqual(60 + 30);
  });

  it('prefers the window that holds most query words', () => {
    const text = `Satzung am Anfang. ${filler(100)} Die Satzung über Gebühren gilt ab Mai. ${filler(20)}`;
    expect(makeSnippet(text, analyzeQuery('Satzung Gebühren'))).toContain('Die Satzung über Gebühren gilt ab Mai.');
  });

  it('shows the start of the text, without a leading ellipsis, when nothing matches', () => {
    const snippet = makeSnippet(`  \n Beginn des Textes. ${filler(100)}`, analyzeQuery('Quastenflosser'));
    expect(snippet.startsWith('Beginn des Textes. Fülltext0 Fülltext1')).toBe(true);
    expect(snippet.endsWith(' …')).toBe(true);
  });

  it('adds no trailing ellipsis when only whitespace follows', () => {
    expect(makeSnippet(`Kurzer Text über Gärten.${' \n'.repeat(400)}`, analyzeQuery('Garten'))).toBe('Kurzer Text über Gärten.');
  });

  it('reaches a whole window across long runs of whitespace', () => {
    const text = `Gärten${' \n\t'.repeat(300)}${filler(100)}`;
    const snippet = makeSnippet(text, analyzeQuery('Garten'));
    expect(snippet.startsWith('Gärten Fülltext0 Fülltext1')).toBe(true);
    expect(snippet.length).toBeGreaterThan(SNIPPET_LENGTH - 30);
  });
});
