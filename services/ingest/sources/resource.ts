// What every source of documents hands to the ingestion pipeline: one fetched resource,
// or a reason why a record of a web archive could not become one.

export interface FetchedResource {
  url: string;
  /** The payload as the server meant it: transfer and content encodings already removed. */
  bytes: Uint8Array;
  /** Lower-case names; content-encoding, transfer-encoding and content-length are dropped once decoded. */
  headers: Record<string, string>;
  /** ISO 8601. */
  fetchedAt: string;
  status: number;
}

export interface WarcSkip {
  url?: string;
  reason: string;
}

export function isWarcSkip(item: FetchedResource | WarcSkip): item is WarcSkip {
  return !('bytes' in item);
}
