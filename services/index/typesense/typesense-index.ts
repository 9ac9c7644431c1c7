import type { Client } from 'typesense';
import type { StoredDocument } from '../../core/document.ts';
import type { DocumentIndex, IndexHit, IndexQuery, IndexSearchResult, IndexStats, SourceCount, WriteOutcome } from '../../core/index-port.ts';
import { fingerprintDistance } from '../../core/text.ts';
import { searchResultError, translateError } from './errors.ts';
import { deleteIds, describeImportError, importRecords, type ImportOptions } from './importer.ts';
import { collectCandidates, isLongQuery, pageCandidates } from './long-query.ts';
import { anyOf, exactIdsRequest, planSearch, type SearchRequest } from './query.ts';
import {
  ALIAS_PREFIX,
  aliasRecord,
  fromRecord,
  idKey,
  META_ID,
  metaRecord,
  signatureOf,
  toRecord,
  type TypesenseRecord,
} from './record.ts';
import { INDEX_ONLY_FIELDS } from './schema.ts';
import { WRITE_RETRY, withRetry, type RetryPolicy } from './retry.ts';

// The index port on a Typesense collection (or the alias in front of it). Besides documents, the
// collection holds alias records (`alias:<id>`, a duplicate URL pointing at its primary) and one
// meta record (the time of the last change); `listed:=true` keeps both out of every search.

export interface TypesenseIndexOptions {
  /** Collection or alias name; readers use the alias, so that a swap takes effect at once. */
  collection: string;
  import?: ImportOptions;
  retry?: RetryPolicy;
  /** A client with short timeouts for readiness probes (each node tried once); the main client otherwise. */
  healthClient?: Client;
  now?: () => Date;
  /**
   * Sent as search_cutoff_ms: the server stops a search after this long and answers with what it
   * found (`search_cutoff: true`, reported as a `gte` total). Must stay below the client's request
   * timeout, or the client gives up first and the node is marked unhealthy (default 2500 ms, half
   * of the default 5 s timeout; open.ts derives it from the timeout).
   */
  searchCutoffMs?: number;
  /**
   * How long this process's own writes are read from memory rather than from the cluster (default
   * 60 s): a follower may answer a read before it applied a write the leader acknowledged.
   */
  ownWritesMs?: number;
  /** At most this many own writes are kept for that (default 2000; the oldest go first). */
  ownWritesMax?: number;
}

interface Hit {
  document: Record<string, unknown>;
}

interface SearchResult {
  found: number;
  hits?: Hit[];
  facet_counts?: { field_name: string; counts: { value: string; count: number }[] }[];
  search_cutoff?: boolean;
  code?: number;
  error?: string;
}

const STORED_ONLY = { exclude_fields: INDEX_ONLY_FIELDS.join(','), highlight_fields: 'none', highlight_full_fields: 'none' };
const MAX_SOURCES = 100_000;

/** Pending writes of the open batch: a record, or null for a deletion. */
type Pending = Map<string, TypesenseRecord | null>;

/**
 * Writes this process made lately, kept so that it reads its own writes back on a cluster: typesense-js
 * sends each request to the next node, and a follower answers from its own state, which may not
 * hold a write yet (src/raft_server.cpp: followers apply the log after the leader commits).
 */
class OwnWrites {
  private readonly entries = new Map<string, { record: TypesenseRecord | null; at: number }>();
  private readonly ttlMs: number;
  private readonly max: number;
  constructor(ttlMs: number, max: number) {
    this.ttlMs = ttlMs;
    this.max = max;
  }

  note(id: string, record: TypesenseRecord | null): void {
    this.entries.delete(id);
    this.entries.set(id, { record, at: Date.now() });
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  /** The live entries, oldest first; expired ones (at the front: notes are in time order) are dropped. */
  live(): Map<string, { record: TypesenseRecord | null; at: number }> {
    const cutoff = Date.now() - this.ttlMs;
    for (const [id, entry] of this.entries) {
      if (entry.at >= cutoff) break;
      this.entries.delete(id);
    }
    return this.entries;
  }
}

/** A read's view of this process's own writes: the open batch over the recent writes, without copying. */
class Shadow {
  private readonly pending: Pending | null;
  private readonly own: Map<string, { record: TypesenseRecord | null }>;
  constructor(pending: Pending | null, own: Map<string, { record: TypesenseRecord | null }>) {
    this.pending = pending;
    this.own = own;
  }

  get size(): number {
    return (this.pending?.size ?? 0) + this.own.size;
  }

  has(id: string): boolean {
    return Boolean(this.pending?.has(id)) || this.own.has(id);
  }

  get(id: string): TypesenseRecord | null | undefined {
    return this.pending?.has(id) ? this.pending.get(id) : this.own.get(id)?.record;
  }

  *values(): Generator<TypesenseRecord | null> {
    if (this.pending) yield* this.pending.values();
    for (const [id, entry] of this.own) if (!this.pending?.has(id)) yield entry.record;
  }
}

export class TypesenseIndex implements DocumentIndex {
  readonly collection: string;
  private readonly client: Client;
  private readonly options: TypesenseIndexOptions;
  private pending: Pending | null = null;
  private pendingLastChange: string | null = null;
  private knownLastChange: string | null = null;
  private readonly ownWrites: OwnWrites;

  constructor(client: Client, options: TypesenseIndexOptions) {
    this.client = client;
    this.collection = options.collection;
    this.options = options;
    this.ownWrites = new OwnWrites(options.ownWritesMs ?? 60_000, options.ownWritesMax ?? 2_000);
  }

  /** The writes a read must see over the cluster's answer: own recent writes, then the open batch. */
  private shadow(): Shadow {
    return new Shadow(this.pending, this.ownWrites.live());
  }

  private async multiSearch(requests: SearchRequest[], what: string): Promise<SearchResult[]> {
    const cutoff = this.options.searchCutoffMs ?? 2_500;
    try {
      const searches = requests.map((request) => ({ search_cutoff_ms: cutoff, ...request }));
      const response = (await this.client.multiSearch.perform({ searches } as never, {})) as unknown as { results: SearchResult[] };
      for (const result of response.results) if (result.code !== undefined && result.error !== undefined) throw searchResultError(result);
      return response.results;
    } catch (error) {
      throw translateError(error, { what: `${what} in ${this.collection}` });
    }
  }

  private request(extra: SearchRequest): SearchRequest {
    return { collection: this.collection, q: '*', ...STORED_ONLY, ...extra };
  }

  async search(query: IndexQuery): Promise<IndexSearchResult> {
    if (isLongQuery(query)) {
      const candidates = await collectCandidates(query, this.collection, async (request) => (await this.multiSearch([request], 'search'))[0]);
      const page = pageCandidates(query, candidates);
      return { hits: page.hits, hasMore: page.hasMore, ...this.total(query, page.hits.length, page.hasMore, page.total, !page.complete) };
    }
    const plan = planSearch(query, this.collection);
    let ranked: IndexHit[];
    let found: number;
    let cutoff: boolean;
    if (plan.kind === 'newest') {
      const [all] = await this.multiSearch([plan.all], 'search');
      const docs = (all.hits ?? []).map((hit) => fromRecord(hit.document));
      const exactIds = await this.exactIds(docs.slice(0, query.limit), query);
      ranked = docs.map((document) => ({ document, matchType: exactIds.has(document.id) ? 'exact' : 'word_form' }));
      found = all.found;
      cutoff = all.search_cutoff === true;
    } else {
      const [exact, all] = await this.multiSearch([plan.exact, plan.all], 'search');
      // Pass B lists the exact hits first: its positions before found(A) are skipped (query.ts).
      const skip = Math.max(0, exact.found - query.offset);
      const seen = new Set<string>();
      ranked = [];
      const add = (hit: Hit, matchType: IndexHit['matchType']) => {
        const document = fromRecord(hit.document);
        if (seen.has(document.id)) return;
        seen.add(document.id);
        ranked.push({ document, matchType });
      };
      for (const hit of exact.hits ?? []) add(hit, 'exact');
      for (const hit of (all.hits ?? []).slice(skip)) add(hit, 'word_form');
      found = all.found;
      cutoff = exact.search_cutoff === true || all.search_cutoff === true;
    }
    const hasMore = ranked.length > query.limit;
    const hits = ranked.slice(0, query.limit);
    return { hits, hasMore, ...this.total(query, hits.length, hasMore, found, cutoff) };
  }

  /**
   * Typesense counts while it searches, so `found` is exact. A zero budget means "do not count":
   * then only what the page proves is reported, as a lower bound, like a count cut short.
   */
  private total(query: IndexQuery, pageLength: number, hasMore: boolean, found: number, cutoff: boolean): Pick<IndexSearchResult, 'total' | 'totalRelation'> {
    const proven = pageLength ? query.offset + pageLength + (hasMore ? 1 : 0) : 0;
    // A search the server cut short (search_cutoff_ms) proves only what it found.
    if (cutoff) return { total: Math.max(found, proven), totalRelation: 'gte' };
    if (!hasMore && (pageLength > 0 || query.offset === 0)) return { total: query.offset + pageLength, totalRelation: 'eq' };
    if (query.countBudgetMs <= 0) return { total: proven, totalRelation: 'gte' };
    return { total: Math.max(found, proven), totalRelation: cutoff ? 'gte' : 'eq' };
  }

  private async exactIds(docs: StoredDocument[], query: IndexQuery): Promise<Set<string>> {
    if (docs.length === 0 || query.terms.length === 0) return new Set(docs.map((doc) => doc.id));
    const [result] = await this.multiSearch([exactIdsRequest(this.collection, docs.map((doc) => doc.id), query.terms)], 'match types');
    return new Set((result.hits ?? []).map((hit) => String(hit.document.id)));
  }

  /** Records by Typesense id, this process's own writes (the open batch, recent writes) taking precedence. */
  private async fetchRecords(ids: string[]): Promise<Map<string, Record<string, unknown>>> {
    const records = new Map<string, Record<string, unknown>>();
    const shadow = this.shadow();
    const remote = ids.filter((id) => !shadow.has(id));
    if (remote.length) {
      const [result] = await this.multiSearch([this.request({ filter_by: anyOf('id', remote), offset: 0, limit: remote.length })], 'lookup');
      for (const hit of result.hits ?? []) records.set(String(hit.document.id), hit.document);
    }
    for (const id of ids) {
      const own = shadow.get(id);
      if (own) records.set(id, own);
    }
    return records;
  }

  async getDocument(id: string): Promise<StoredDocument | null> {
    if (!id || id.includes('`')) return null; // not an id this index can hold
    const records = await this.fetchRecords([id, `${ALIAS_PREFIX}${id}`]);
    const own = records.get(id);
    if (own?.kind === 'document') return fromRecord(own);
    const alias = records.get(`${ALIAS_PREFIX}${id}`);
    if (typeof alias?.alias_of !== 'string' || alias.alias_of.includes('`')) return null;
    const primary = (await this.fetchRecords([alias.alias_of])).get(alias.alias_of);
    return primary?.kind === 'document' ? fromRecord(primary) : null;
  }

  private async sourceFacets(): Promise<{ documents: number; sources: SourceCount[] }> {
    const [result] = await this.multiSearch(
      [this.request({ filter_by: 'listed:=true', facet_by: 'source_domain', max_facet_values: MAX_SOURCES, facet_strategy: 'exhaustive', per_page: 0 })],
      'sources',
    );
    const counts = result.facet_counts?.find((facet) => facet.field_name === 'source_domain')?.counts ?? [];
    const sources = counts
      .map((count) => ({ domain: count.value, documents: count.count }))
      .sort((a, b) => b.documents - a.documents || (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
    return { documents: result.found, sources };
  }

  async listSources(): Promise<SourceCount[]> {
    return (await this.sourceFacets()).sources;
  }

  async stats(): Promise<IndexStats> {
    const [{ documents, sources }, meta] = await Promise.all([this.sourceFacets(), this.readLastChange()]);
    return { documents, sources: sources.length, lastDocumentChange: meta };
  }

  private async readLastChange(): Promise<string | null> {
    const meta = (await this.fetchRecords([META_ID])).get(META_ID);
    const value = typeof meta?.value === 'string' ? meta.value : null;
    if (value && (!this.knownLastChange || value > this.knownLastChange)) this.knownLastChange = value;
    return value;
  }

  /** The last change only moves forward, as in the SQLite adapter (`max(value, new)`). */
  private async noteChange(changedAt: string): Promise<void> {
    if (this.pending) {
      if (!this.pendingLastChange || changedAt > this.pendingLastChange) this.pendingLastChange = changedAt;
      return;
    }
    if (this.knownLastChange && changedAt <= this.knownLastChange) return;
    const current = await this.readLastChange();
    if (current && changedAt <= current) return;
    await this.upsertNow(metaRecord(changedAt));
    this.knownLastChange = changedAt;
  }

  private async upsertNow(record: TypesenseRecord): Promise<void> {
    try {
      await withRetry(this.options.retry ?? WRITE_RETRY, () => this.client.collections(this.collection).documents().upsert(record));
    } catch (error) {
      throw translateError(error, { what: `writing ${String(record.id)} to ${this.collection}` });
    }
    this.ownWrites.note(String(record.id), record);
  }

  private async write(records: TypesenseRecord[]): Promise<void> {
    if (this.pending) {
      for (const record of records) this.pending.set(String(record.id), record);
      return;
    }
    for (const record of records) await this.upsertNow(record);
  }

  private async erase(ids: string[]): Promise<void> {
    if (this.pending) {
      for (const id of ids) this.pending.set(id, null);
      return;
    }
    try {
      await deleteIds(this.client, this.collection, ids, this.options.retry);
    } catch (error) {
      throw translateError(error, { what: `deleting from ${this.collection}` });
    }
    for (const id of ids) this.ownWrites.note(id, null);
  }

  async put(doc: StoredDocument): Promise<WriteOutcome> {
    const existing = (await this.fetchRecords([doc.id])).get(doc.id);
    const isDocument = existing?.kind === 'document';
    if (isDocument && signatureOf(fromRecord(existing)) === signatureOf(doc)) return 'unchanged';
    await this.write([toRecord(doc)]);
    await this.noteChange(doc.changedAt);
    return isDocument ? 'updated' : 'added';
  }

  /** Server candidates shadowed by this process's own writes, plus own records that qualify. */
  private overlay(remote: Record<string, unknown>[], qualifies: (record: TypesenseRecord) => boolean): Record<string, unknown>[] {
    const shadow = this.shadow();
    if (!shadow.size) return remote;
    const kept = remote.filter((record) => !shadow.has(String(record.id)));
    for (const record of shadow.values()) if (record && qualifies(record)) kept.push(record);
    return kept;
  }

  async findByContentHash(contentHash: string): Promise<StoredDocument | null> {
    if (!/^[0-9a-f]+$/i.test(contentHash)) return null;
    const [result] = await this.multiSearch(
      [this.request({ filter_by: `listed:=true && ${anyOf('content_hash', [contentHash])}`, sort_by: 'changed_ts:asc', offset: 0, limit: 10 })],
      'content hash lookup',
    );
    const records = this.overlay(
      (result.hits ?? []).map((hit) => hit.document),
      (record) => record.listed === true && record.content_hash === contentHash,
    );
    return records.length ? fromRecord(records[0]) : null;
  }

  async findNearDuplicateCandidates(titleKey: string, fingerprint: string, maxBits: number, limit: number): Promise<StoredDocument[]> {
    if (!/^[0-9a-f]+$/i.test(titleKey)) return [];
    const [result] = await this.multiSearch(
      [this.request({ filter_by: `listed:=true && ${anyOf('title_key', [titleKey])}`, sort_by: 'changed_ts:desc', offset: 0, limit: 200 })],
      'near-duplicate lookup',
    );
    const records = this.overlay(
      (result.hits ?? []).map((hit) => hit.document),
      (record) => record.listed === true && record.title_key === titleKey,
    );
    return records
      .filter((record) => typeof record.fingerprint === 'string' && fingerprintDistance(record.fingerprint, fingerprint) <= maxBits)
      .slice(0, limit)
      .map(fromRecord);
  }

  async addAlias(aliasId: string, url: string, primaryId: string): Promise<void> {
    await this.write([aliasRecord(aliasId, url, primaryId)]);
  }

  private async aliasIdsOf(id: string): Promise<string[]> {
    const ids: string[] = [];
    for (let page = 1; ; page++) {
      const [result] = await this.multiSearch(
        [{ collection: this.collection, q: '*', filter_by: `kind:=alias && ${anyOf('alias_key', [idKey(id)])}`, include_fields: 'id', page, per_page: 250 }],
        'alias lookup',
      );
      const hits = result.hits ?? [];
      ids.push(...hits.map((hit) => String(hit.document.id)));
      if (hits.length < 250) break;
    }
    const remote = this.overlay(ids.map((alias) => ({ id: alias })), (record) => record.kind === 'alias' && record.alias_of === id);
    return remote.map((record) => String(record.id));
  }

  async remove(id: string): Promise<boolean> {
    if (!id || id.includes('`')) return false;
    const existing = (await this.fetchRecords([id])).get(id);
    if (existing?.kind !== 'document') return false;
    await this.erase([id, ...(await this.aliasIdsOf(id))]);
    await this.noteChange((this.options.now?.() ?? new Date()).toISOString());
    return true;
  }

  /**
   * Collects the writes of `work` and sends them as JSONL imports when it is done; reads inside the
   * batch see its own writes. If `work` throws, nothing is written (like a rolled-back transaction).
   */
  async writeBatch<T>(work: () => Promise<T>): Promise<T> {
    if (this.pending) return work();
    this.pending = new Map();
    this.pendingLastChange = null;
    try {
      const result = await work();
      await this.flush(this.pending, this.pendingLastChange);
      return result;
    } finally {
      this.pending = null;
      this.pendingLastChange = null;
    }
  }

  private async flush(pending: Pending, lastChange: string | null): Promise<void> {
    const upserts = [...pending.values()].filter((record): record is TypesenseRecord => record !== null);
    const deletions = [...pending.entries()].filter(([, record]) => record === null).map(([id]) => id);
    this.pending = null;
    try {
      if (upserts.length) await importRecords(this.client, this.collection, upserts, { retry: this.options.retry, ...this.options.import });
      for (const record of upserts) this.ownWrites.note(String(record.id), record);
      if (deletions.length) await deleteIds(this.client, this.collection, deletions, this.options.retry);
      for (const id of deletions) this.ownWrites.note(id, null);
    } catch (error) {
      const detail = describeImportError(error);
      throw translateError(detail ? Object.assign(error as Error, { message: detail }) : error, { what: `batch write to ${this.collection}` });
    }
    if (lastChange) await this.noteChange(lastChange);
  }

  async ping(): Promise<boolean> {
    try {
      const health = await (this.options.healthClient ?? this.client).health.retrieve();
      return health.ok === true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    // The client holds no connections between requests; nothing to release.
  }
}
