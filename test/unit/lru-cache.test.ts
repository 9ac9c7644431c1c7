import { describe, expect, it } from 'vitest';
import { LruCache } from '../../services/core/lru-cache.ts';

describe('LruCache', () => {
  it('drops the least recently used first, by cost, and tells of every drop', () => {
    const dropped: string[] = [];
    const cache = new LruCache<string, string>(10, (value) => dropped.push(value));
    cache.set('a', 'A', 4);
    cache.set('b', 'B', 4);
    expect(cache.get('a')).toBe('A'); // now b is the least recently used
    cache.set('c', 'C', 4);
    expect(dropped).toEqual(['B']);
    expect([cache.peek('a'), cache.peek('b'), cache.peek('c')]).toEqual(['A', undefined, 'C']);
  });

  it('peeks without changing the order of use, and holds null apart from nothing', () => {
    const cache = new LruCache<string, string | null>(2);
    cache.set('a', null);
    cache.set('b', 'B');
    expect(cache.peek('a')).toBeNull();
    cache.set('c', 'C');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe('B');
  });

  it('weighs added cost at the next set, and a value set again only once', () => {
    const dropped: string[] = [];
    const cache = new LruCache<string, string>(10, (value) => dropped.push(value));
    cache.set('a', 'A', 3);
    cache.set('b', 'B', 3);
    cache.addCost('a', 4);
    expect(dropped).toEqual([]);
    cache.set('b', 'B2', 3); // replaces b: 7 + 3
    expect(dropped).toEqual([]);
    cache.set('c', 'C', 1);
    expect(dropped).toEqual(['A']);
    expect(cache.peek('b')).toBe('B2');
  });
});
