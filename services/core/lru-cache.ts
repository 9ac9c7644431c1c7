/**
 * A cache bounded by the summed cost of its entries (their bytes, or 1 each), which drops the
 * least recently used first and tells `onDrop` of every value it drops. Built on a Map, whose
 * order of insertion is kept as the order of use.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, { value: V; cost: number }>();
  private total = 0;
  private readonly maxCost: number;
  private readonly onDrop: ((value: V) => void) | undefined;

  constructor(maxCost: number, onDrop?: (value: V) => void) {
    this.maxCost = maxCost;
    this.onDrop = onDrop;
  }

  /** The summed cost it holds at most. */
  get capacity(): number {
    return this.maxCost;
  }

  /** The value held for `key`, now the most recently used; undefined when none is held. */
  get(key: K): V | undefined {
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

  /** Holds `value` as the most recently used, then drops the least recently used until the cost fits. */
  set(key: K, value: V, cost = 1): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.total -= old.cost;
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

  /** Counts more cost to a held entry (data derived from it); it is weighed at the next `set`. */
  addCost(key: K, extra: number): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.cost += extra;
    this.total += extra;
  }
}
