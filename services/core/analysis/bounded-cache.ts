// A bounded memo for the analysis's pure functions of a string. Two generations instead of a
// strict oldest-first Map: deleting a Map's first key leaves a hole that every later
// `keys().next()` walks over until the table is rebuilt, so a full cache of 100k words paid about
// 70 µs per new word. Here a full generation is dropped whole; entries still in use are carried
// over on their next hit.

export class BoundedCache<V> {
  private current = new Map<string, V>();
  private previous = new Map<string, V>();
  private readonly generation: number;

  /** At most `limit` entries (two generations of limit / 2). */
  constructor(limit: number) {
    this.generation = Math.max(1, Math.floor(limit / 2));
  }

  /** The cached value of `key`, computed by `compute` on a miss. */
  get(key: string, compute: (key: string) => V): V {
    const value = this.current.get(key);
    // Kept small, so that the hit (nearly every call) is inlined where it is called.
    return value !== undefined ? value : this.miss(key, compute);
  }

  private miss(key: string, compute: (key: string) => V): V {
    let value = this.previous.get(key);
    if (value === undefined) value = compute(key);
    if (this.current.size >= this.generation) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, value);
    return value;
  }
}
