// The bounded memo of word analyses, looked up by a word's UTF-16 code units where they stand in a
// text. The scanner hashes a word while it reads it; a hit (nearly every word of running text)
// compares code units in place, and the analysis's output (the exact form and the first base) is
// kept as code units too, so that a known word is copied into the output streams without a string
// being made, hashed or joined. Cutting each word out as a string, looking it up in a Map and
// joining the results cost more CPU than everything else a record's preparation does.
//
// Everything of a generation is packed in typed arrays, in the order the words were first met, so
// that the common words sit together in the processor's caches. Two generations, as BoundedCache:
// a full generation is dropped whole; words still in use are carried over on their next hit.

/** FNV-1a over code units, started with HASH_START and stepped with hashStep. */
export const HASH_START = 0x811c9dc5 | 0;

export function hashStep(hash: number, unit: number): number {
  return Math.imul(hash ^ unit, 0x01000193);
}

/** The hash of text[start, end), as the scanner computes it code unit by code unit. */
export function hashOf(text: string, start = 0, end = text.length): number {
  let hash = HASH_START;
  for (let i = start; i < end; i++) hash = hashStep(hash, text.charCodeAt(i));
  return hash;
}

/** What the table keeps of a word's analysis. */
export interface WordAnalysis {
  exact: string;
  bases: readonly string[];
}

/** The word's exact form is empty: it adds nothing to the streams. */
export const NO_OUTPUT = 1;
/** The word has bases beyond the first (compound parts, which a text lists once). */
export const HAS_PARTS = 2;
/** Some output code unit is above 0xff: the streams cannot be Latin-1 bytes. */
export const WIDE = 4;

const FIRST_SLOTS = 1024;

function grown<T extends Int32Array | Uint16Array | Uint8Array>(array: T, needed: number): T {
  if (needed <= array.length) return array;
  const bigger = new (array.constructor as new (length: number) => T)(Math.max(needed, array.length * 2));
  bigger.set(array);
  return bigger;
}

/** Fields of an entry in Generation.meta (then the next entry's, which end these ranges). */
export const KEY = 0;
export const EXACT = 1;
export const BASE = 2;
export const PARTS = 3;
export const STRIDE = 4;

/**
 * One generation. Entry e's fields start at meta[STRIDE * e], and its code units lie together in
 * `units`: its key [KEY, EXACT), its exact form [EXACT, BASE), its first base [BASE, next KEY); the
 * ids of its other bases (compound parts) are partIds[PARTS, next PARTS); part id p's code units are
 * partChars[partAt[p], partAt[p + 1]). A token's look-up compares its key and then copies its forms
 * from the same cache lines: in separate arrays the forms cost a cache miss more per token.
 */
export class Generation<W extends WordAnalysis> {
  /** Per slot: the hash, and entry + 1 (0: free). */
  private slots = new Int32Array(2 * FIRST_SLOTS);
  private mask = FIRST_SLOTS - 1;
  count = 0;
  meta = new Int32Array(STRIDE * (FIRST_SLOTS + 1));
  units = new Uint16Array(24 * FIRST_SLOTS);
  flags = new Uint8Array(FIRST_SLOTS);
  partIds = new Int32Array(FIRST_SLOTS);
  values: W[] = [];
  /** Compound parts by id: a text writes each once (see partSeen). */
  private partIdOf = new Map<string, number>();
  partAt = new Int32Array(FIRST_SLOTS + 1);
  partChars = new Uint16Array(8 * FIRST_SLOTS);
  /** Per part id, the `serial` of the last text that wrote it. */
  partSeen = new Int32Array(FIRST_SLOTS);
  /** Numbers the texts written with this generation (for partSeen). */
  serial = 0;

  /** The entry of text[start, end) (hash `hash`), or -1. */
  find(text: string, start: number, end: number, hash: number): number {
    const slots = this.slots;
    const length = end - start;
    // FNV-1a's low bits alone spread poorly: the high bits are mixed in for the slot.
    for (let slot = (hash ^ (hash >>> 15)) & this.mask; ; slot = (slot + 1) & this.mask) {
      const entry = slots[2 * slot + 1] - 1;
      if (entry < 0) return -1;
      if (slots[2 * slot] !== hash) continue;
      const from = this.meta[STRIDE * entry + KEY];
      if (this.meta[STRIDE * entry + EXACT] - from !== length) continue;
      const keys = this.units;
      let i = 0;
      while (i < length && keys[from + i] === text.charCodeAt(start + i)) i++;
      if (i === length) return entry;
    }
  }

  /** Adds text[start, end) (not present) with its analysis; returns its entry. */
  add(text: string, start: number, end: number, hash: number, value: W): number {
    const entry = this.count++;
    if (2 * this.count > this.mask + 1) this.rehash(2 * (this.mask + 1));
    let slot = (hash ^ (hash >>> 15)) & this.mask;
    while (this.slots[2 * slot + 1] !== 0) slot = (slot + 1) & this.mask;
    this.slots[2 * slot] = hash;
    this.slots[2 * slot + 1] = entry + 1;

    const at = STRIDE * entry;
    const next = at + STRIDE;
    const meta = (this.meta = grown(this.meta, next + STRIDE));
    const first = value.bases[0] ?? '';
    let u = meta[at + KEY];
    const units = (this.units = grown(this.units, u + end - start + value.exact.length + first.length));
    for (let i = start; i < end; i++) units[u++] = text.charCodeAt(i);
    meta[at + EXACT] = u;
    let wide = 0;
    for (let i = 0; i < value.exact.length; i++) wide |= units[u++] = value.exact.charCodeAt(i);
    meta[at + BASE] = u;
    for (let i = 0; i < first.length; i++) wide |= units[u++] = first.charCodeAt(i);
    meta[next + KEY] = u;

    let p = meta[at + PARTS];
    this.partIds = grown(this.partIds, p + value.bases.length);
    for (let b = 1; b < value.bases.length; b++) {
      const part = value.bases[b];
      for (let i = 0; i < part.length; i++) wide |= part.charCodeAt(i);
      this.partIds[p++] = this.partId(part);
    }
    meta[next + PARTS] = p;

    this.flags = grown(this.flags, entry + 1);
    this.flags[entry] = (value.exact ? 0 : NO_OUTPUT) | (value.bases.length > 1 ? HAS_PARTS : 0) | (wide > 0xff ? WIDE : 0);
    this.values.push(value);
    return entry;
  }

  private partId(part: string): number {
    let id = this.partIdOf.get(part);
    if (id !== undefined) return id;
    id = this.partIdOf.size;
    this.partIdOf.set(part, id);
    this.partAt = grown(this.partAt, id + 2);
    this.partSeen = grown(this.partSeen, id + 1);
    let c = this.partAt[id];
    this.partChars = grown(this.partChars, c + part.length);
    for (let i = 0; i < part.length; i++) this.partChars[c++] = part.charCodeAt(i);
    this.partAt[id + 1] = c;
    return id;
  }

  private rehash(size: number): void {
    const slots = new Int32Array(2 * size);
    const mask = size - 1;
    for (let old = 0; old <= this.mask; old++) {
      const entry = this.slots[2 * old + 1];
      if (entry === 0) continue;
      const hash = this.slots[2 * old];
      let slot = (hash ^ (hash >>> 15)) & mask;
      while (slots[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
      slots[2 * slot] = hash;
      slots[2 * slot + 1] = entry;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

export class WordTable<W extends WordAnalysis> {
  /** Where get() found or put the word: read its entry's data here after each call. */
  current = new Generation<W>();
  private previous = new Generation<W>();
  private readonly generation: number;
  private readonly compute: (word: string) => W;

  /** At most `limit` words (two generations of limit / 2), each analysed by `compute` on first use. */
  constructor(limit: number, compute: (word: string) => W) {
    this.generation = Math.max(1, Math.floor(limit / 2));
    this.compute = compute;
  }

  /** The entry in `current` of the word text[start, end), whose hashOf is `hash`; the word is cut out only when it is new. */
  get(text: string, start: number, end: number, hash: number): number {
    const entry = this.current.find(text, start, end, hash);
    return entry >= 0 ? entry : this.miss(text, start, end, hash);
  }

  /** The analysis of a word given as a string. */
  value(word: string): W {
    const entry = this.get(word, 0, word.length, hashOf(word));
    return this.current.values[entry];
  }

  private miss(text: string, start: number, end: number, hash: number): number {
    const before = this.previous.find(text, start, end, hash);
    const value = before >= 0 ? this.previous.values[before] : this.compute(start === 0 && end === text.length ? text : text.slice(start, end));
    if (this.current.count >= this.generation) {
      this.previous = this.current;
      this.current = new Generation<W>();
    }
    return this.current.add(text, start, end, hash, value);
  }
}
