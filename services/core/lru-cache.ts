/**
 * A cache bounded by the summed cost of its entries (their bytes, or 1 each), which drops the
 * least recently used first and tells `onDrop` of every value it drops. Built on a Map, whose
 * order of insertion is kept as the order of use.
 *
 * With `admission`, a value that would push others out is held only when its key has been asked
 * for more often than each of theirs (TinyLFU's admission: Einziger, Friedman and Manes, "TinyLFU:
 * A Highly Efficient Cache Admission Policy", 2017); otherwise it is dropped at once. Plain LRU
 * keeps nothing when a mix of queries cycles through more lists than it holds — every list is
 * pushed out before its next use —, while admission keeps a steady share of them, and the often
 * used ones in a skewed mix. Counts are halved from time to time, so that a new favourite wins.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, { value: V; cost: number }>();
  private total = 0;
  private readonly maxCost: number;
  private readonly onDrop: ((value: V) => void) | undefined;
  /** How often each key was asked for (by `get`), halved from time to time (`count`); null without admission. */
  private readonly asked: Map<K, number> | null;
  private questions = 0;

  constructor(maxCost: number, onDrop?: (value: V) => void, options: { admission?: boolean } = {}) {
    this.maxCost = maxCost;
    this.onDrop = onDrop;
    this.asked = options.admission ? new Map() : null;
  }

  /** The summed cost it holds at most. */
  get capacity(): number {
    return this.maxCost;
  }

  /** The value held for `key`, now the most recently used; undefined when none is held. */
  get(key: K): V | undefined {
    if (this.asked) this.count(key);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** The value held for `key`, its place in the order of use unchanged. */
  peek(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }

  /**
   * Holds `value` as the most recently used, then drops the least recently used until the cost
   * fits — unless, with admission, the key is not asked for more often than those it would push
   * out: then `value` is dropped instead.
   */
  set(key: K, value: V, cost = 1): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.total -= old.cost;
    } else if (this.asked && !this.admits(key, cost)) {
      this.onDrop?.(value);
      return;
    }
    this.entries.set(key, { value, cost });
    this.total += cost;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.maxCost) break;
      this.entries.delete(oldest);
      this.total -= entry.cost;
      this.onDrop?.(entry.value);
    }
  }

  /** Keys whose questions are counted (admission only; for tests). */
  get countedKeys(): number {
    return this.asked?.size ?? 0;
  }

  /** Counts more cost to a held entry (data derived from it); it is weighed at the next `set`. */
  addCost(key: K, extra: number): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.cost += extra;
    this.total += extra;
  }

  /** Whether `key` was asked for more often than every entry that would make room for `cost`. */
  private admits(key: K, cost: number): boolean {
    const asked = this.asked!;
    const mine = asked.get(key) ?? 0;
    let room = this.maxCost - this.total;
    for (const [oldest, entry] of this.entries) {
      if (room >= cost) break;
      if ((asked.get(oldest) ?? 0) >= mine) return false;
      room += entry.cost;
    }
    return true;
  }

  private count(key: K): void {
    const asked = this.asked!;
    asked.set(key, (asked.get(key) ?? 0) + 1);
    // Halved after ten times as many questions as entries held (at least 1024): old favourites
    // fade, and keys asked for once are forgotten, so the counts stay bounded by the questions.
    if (++this.questions < Math.max(1024, 10 * this.entries.size)) return;
    this.questions = 0;
    for (const [k, n] of asked) {
      if (n > 1) asked.set(k, n >>> 1);
      else asked.delete(k);
    }
  }
}
