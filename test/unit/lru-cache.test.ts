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

  it('with admission, keeps part of a cycle longer than it holds (plain LRU keeps none of it)', () => {
    const hitsOver = (cache: LruCache<number, number>) => {
      let hits = 0;
      for (let round = 0; round < 20; round++) {
        for (let key = 0; key < 10; key++) {
          if (cache.get(key) !== undefined) hits++;
          else cache.set(key, key);
        }
      }
      return hits;
    };
    expect(hitsOver(new LruCache(6))).toBe(0);
    // The first six keys are held and the next four asked for as often, never more: they stay out.
    expect(hitsOver(new LruCache(6, undefined, { admission: true }))).toBe(6 * 19);
  });

  it('with admission, drops a newcomer asked for no more often than what it would push out, and lets a favourite in', () => {
    const dropped: string[] = [];
    const cache = new LruCache<string, string>(2, (value) => dropped.push(value), { admission: true });
    for (const key of ['a', 'b']) {
      cache.get(key);
      cache.set(key, key.toUpperCase());
    }
    cache.get('c');
    cache.set('c', 'C'); // asked for once, like a: dropped at once
    expect(dropped).toEqual(['C']);
    expect(cache.peek('c')).toBeUndefined();
    cache.get('c');
    cache.set('c', 'C'); // now twice: a, the least recently used, makes room
    expect(dropped).toEqual(['C', 'A']);
    expect([cache.peek('a'), cache.peek('b'), cache.peek('c')]).toEqual([undefined, 'B', 'C']);
  });

  it('with admission, halves its counts over time, so that a new favourite wins over an old one', () => {
    const cache = new LruCache<string, string>(1, undefined, { admission: true });
    for (let i = 0; i < 100; i++) cache.get('old');
    cache.set('old', 'OLD');
    for (let i = 0; i < 20; i++) cache.get('new');
    cache.set('new', 'NEW'); // 20 against 100: dropped
    expect(cache.peek('old')).toBe('OLD');
    // Counts are halved every 1024 questions (with few keys): after 3000 more, the old favourite's 100 are 12
    // and the newcomer's first 20 are 2.
    for (let i = 0; i < 3000; i++) cache.get(`other-${i % 3}`);
    for (let i = 0; i < 20; i++) cache.get('new'); // 40 in all, but the last 20 count more than the old 100
    cache.set('new', 'NEW');
    expect(cache.peek('new')).toBe('NEW');
    expect(cache.peek('old')).toBeUndefined();
  });

  it('with admission, forgets keys asked for once: a stream of new keys does not grow its counts without bound', () => {
    const cache = new LruCache<string, string>(8, undefined, { admission: true });
    for (let i = 0; i < 100_000; i++) {
      if (cache.get(`word-${i}`) === undefined) cache.set(`word-${i}`, 'x');
    }
    expect(cache.countedKeys).toBeLessThanOrEqual(1024);
  });
});
