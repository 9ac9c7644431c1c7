import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../services/core/analysis/bounded-cache.ts';
import { analyzeForIndex, analyzeWord } from '../../services/core/analysis/index.ts';

describe('the analysis caches', () => {
  it('compute each key once while it is kept, and again after it was dropped', () => {
    const computed: string[] = [];
    const cache = new BoundedCache<string>(4);
    const get = (key: string) => cache.get(key, (k) => (computed.push(k), k.toUpperCase()));
    expect([get('a'), get('b'), get('a')]).toEqual(['A', 'B', 'A']);
    expect(computed).toEqual(['a', 'b']);
    // Two generations of two: c starts a new one, a (used again) is carried into it, d drops b's.
    get('c');
    get('a');
    get('d');
    get('e');
    expect(computed).toEqual(['a', 'b', 'c', 'd', 'e']);
    get('b');
    expect(computed).toEqual(['a', 'b', 'c', 'd', 'e', 'b']);
  });

  it('keep null values (a word that is no compound) without computing them again', () => {
    let calls = 0;
    const cache = new BoundedCache<string | null>(10);
    cache.get('x', () => (calls++, null));
    expect(cache.get('x', () => (calls++, null))).toBeNull();
    expect(calls).toBe(1);
  });

  it('give the same analysis for a word however often its compound head and stems were met before', () => {
    const fresh = analyzeWord('Oberlandesgerichtsbezirke');
    // The head's split and the parts' stems now come from the caches.
    for (const word of ['Landesgerichtsbezirk', 'Gerichtsbezirke', 'Bezirksgericht', 'Oberlandesgericht']) analyzeWord(word);
    expect(analyzeWord('Oberlandesgerichtsbezirke')).toEqual(fresh);
    expect(analyzeForIndex('Oberlandesgerichtsbezirke').base.split(' ')).toEqual(fresh.bases);
    expect(fresh.bases).toEqual(expect.arrayContaining(['oberlandesgerichtsbezirk', 'bezirk', 'gericht']));
  });
});
