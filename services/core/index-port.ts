import type { QueryTerm } from './analysis/index.ts';
import type { DocumentType, StoredDocument } from './document.ts';

// The index port (DESIGN.md section 2): what use cases need from an index. Adapters live in
// services/index/ (SQLite embedded, Typesense for clusters) and pass test/contract/index-contract.ts.

export interface IndexQuery {
  /** Analysed query terms, all of which must match (spec 4.1 rule 1). Empty: every document (only with `order: 'newest'`). */
  terms: QueryTerm[];
  /** Host filter: documents whose host is this host or one of its subdomains. */
  host?: string;
  topic?: string;
  documentTypes?: DocumentType[];
  /** Only documents whose age date (later of modified/published) is on or after this ISO date; undated excluded. */
  minAgeDate?: string;
  newsOnly?: boolean;
  order: 'relevance' | 'newest';
  limit: number;
  offset: number;
  /** Time budget for counting `total`; past it the count is a lower bound ("gte"). */
  countBudgetMs: number;
  /**
   * The caller shows only what a search hit has (`toSearchHit`) and the snippet: an index that
   * answers on another thread may leave the record's other fields empty (text, content, hashes),
   * so that less is copied between threads.
   */
  hitFieldsOnly?: boolean;
}

export interface IndexHit {
  document: StoredDocument;
  matchType: 'exact' | 'word_form';
  /** Made where the whole text is (adapters that trim texts of hits); else the use case makes it. */
  snippet?: string;
}

export interface IndexSearchResult {
  hits: IndexHit[];
  hasMore: boolean;
  total: number;
  totalRelation: 'eq' | 'gte';
}

export interface SourceCount {
  domain: string;
  documents: number;
}

export interface IndexStats {
  documents: number;
  sources: number;
  lastDocumentChange: string | null;
}

export type WriteOutcome = 'added' | 'updated' | 'unchanged';

/** What the near-duplicate check reads of a candidate: an adapter need not read the whole record. */
/** A record a new one may repeat; `text` may be read only when asked for (SQLite). */
export type NearDuplicateCandidate = Pick<StoredDocument, 'id' | 'text' | 'duplicateOf' | 'contentHash'>;

export interface DocumentIndex {
  search(query: IndexQuery): Promise<IndexSearchResult>;
  /** By id, or by the id of an alias URL of a collapsed duplicate. */
  getDocument(id: string): Promise<StoredDocument | null>;
  listSources(): Promise<SourceCount[]>;
  stats(): Promise<IndexStats>;

  /** Writes one record (insert or replace by id). Records with `duplicateOf` set are stored but never returned by search. */
  put(document: StoredDocument): Promise<WriteOutcome>;
  /** The primary record holding this exact normalised text, if any. */
  findByContentHash(contentHash: string): Promise<StoredDocument | null>;
  /**
   * Near-duplicate candidates: primary records whose title has this key (`titleKeyOf`) and whose
   * fingerprint differs from this one in at most `maxBits` bits (`fingerprintDistance`), at most `limit`.
   */
  findNearDuplicateCandidates(titleKey: string, fingerprint: string, maxBits: number, limit: number): Promise<NearDuplicateCandidate[]>;
  /** Records another URL as a duplicate of a primary record: its id resolves to the primary. */
  addAlias(aliasId: string, url: string, primaryId: string): Promise<void>;
  /** Removes a record (and aliases pointing at it). */
  remove(id: string): Promise<boolean>;
  /** Runs several writes as one unit (one commit); adapters without transactions just run `work`. */
  writeBatch<T>(work: () => Promise<T>): Promise<T>;
  /** Is the index usable (readiness)? */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
