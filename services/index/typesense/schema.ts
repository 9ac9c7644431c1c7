// The Typesense collection layout of the index port. Readers query an alias (`fundus_web`); the
// alias points at a versioned collection (`fundus_web_v1`, or `fundus_web_v1_<stamp>` after a
// rebuild), so that a rebuild or a layout migration fills a new collection and then swaps the alias
// in one call: searches never see a half-filled index.

/** Bump when the fields below change meaning; the program then migrates into `<alias>_v<N>`. */
// 2: base tokens keep -ung/-heit/-keit, exact tokens as written (lower case only), as the embedded
//    index's layout 5. Operators migrate by ingesting into a new embedded data directory and
//    running `fundus index copy --from sqlite --to typesense` (fills `fundus_web_v2_<stamp>`, then
//    swaps the alias); a program of one version refuses a collection of the other.
export const TYPESENSE_SCHEMA_VERSION = 2;

export const COLLECTIONS = {
  web: 'fundus_web',
  fediverse: 'fundus_fediverse',
} as const;
export type CollectionKind = keyof typeof COLLECTIONS;

export interface FieldSpec {
  name: string;
  type: 'string' | 'string[]' | 'bool' | 'int64';
  optional?: boolean;
  facet?: boolean;
  index?: boolean;
}

export interface CollectionSchema {
  name: string;
  fields: FieldSpec[];
  enable_nested_fields: boolean;
  token_separators: string[];
  symbols_to_index: string[];
}

// Every value that is filtered on is a token of [a-z0-9] only (see record.ts), so Typesense's own
// tokenizer (which drops symbols and folds diacritics) can neither merge nor split them.
const INDEXED: FieldSpec[] = [
  { name: 'kind', type: 'string' }, // document | alias | meta
  { name: 'listed', type: 'bool' }, // a searchable primary record (kind document, no duplicate_of)
  { name: 'title_exact', type: 'string', optional: true }, // ranking text of pass A (exact forms)
  { name: 'all_exact', type: 'string', optional: true }, // title + body exact forms in one field
  { name: 'terms', type: 'string[]', optional: true }, // matching: x<exact> and b<base> tokens
  { name: 'title_terms', type: 'string[]', optional: true }, // the same for the title alone (ranking)
  { name: 'host_keys', type: 'string[]', optional: true }, // host and parent domains, hashed
  { name: 'document_type', type: 'string', optional: true },
  { name: 'topic_key', type: 'string', optional: true },
  { name: 'is_news', type: 'bool', optional: true },
  { name: 'age_ts', type: 'int64', optional: true }, // later of modified/published, epoch seconds
  { name: 'changed_ts', type: 'int64', optional: true },
  { name: 'source_domain', type: 'string', optional: true, facet: true },
  { name: 'content_hash', type: 'string', optional: true },
  { name: 'title_key', type: 'string', optional: true }, // near-duplicate candidates share it
  { name: 'alias_key', type: 'string', optional: true }, // on alias records: key of the primary id
];

// Stored with the record, never indexed (Typesense keeps them on disk, not in memory).
const STORED = [
  'url', 'canonical_url', 'host', 'source_id', 'title', 'text', 'content_type', 'language',
  'published_at', 'modified_at', 'content_date', 'dates_json', 'fetched_at', 'fingerprint', 'topic',
  'content_json', 'duplicate_of', 'changed_at', 'alias_of', 'value',
];

export const STORED_FIELDS: readonly string[] = STORED;

/** Index-only fields: never sent back with search hits (they are large and only serve matching). */
export const INDEX_ONLY_FIELDS = ['title_exact', 'all_exact', 'terms', 'title_terms', 'host_keys'] as const;

export function collectionSchema(name: string): CollectionSchema {
  return {
    name,
    fields: [...INDEXED, ...STORED.map((field): FieldSpec => ({ name: field, type: 'string', optional: true, index: false }))],
    enable_nested_fields: false,
    token_separators: [],
    symbols_to_index: [],
  };
}

const STAMP = /^\d{14}$/;

/** `fundus_web_v1` for the first collection; a rebuild adds a UTC stamp: `fundus_web_v1_20261102101500`. */
export function versionedName(alias: string, version = TYPESENSE_SCHEMA_VERSION, stamp?: string): string {
  if (stamp !== undefined && !STAMP.test(stamp)) throw new Error(`rebuild stamp must be 14 digits, got "${stamp}"`);
  return stamp ? `${alias}_v${version}_${stamp}` : `${alias}_v${version}`;
}

export function rebuildStamp(now: Date): string {
  return now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** The layout version of a collection name of this alias, or null if the name is not one of ours. */
export function versionOf(alias: string, collection: string): number | null {
  const match = new RegExp(`^${alias.replace(/[^a-z0-9_]/g, '')}_v(\\d+)(?:_\\d{14})?$`).exec(collection);
  return match ? Number(match[1]) : null;
}
