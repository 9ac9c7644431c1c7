import type { ExtractedDocument } from '../core/document.ts';

/** One thing to ingest, from any source (files, a manifest, WARC records, the crawler). */
export interface IngestItem {
  /** Where the document lives on the web (or a file:// URL for plain local files). */
  url: string;
  fetchedAt: string;
  /** HTTP response headers, lower-case names. */
  headers: Record<string, string>;
  /** For messages: the file path or URL. */
  label: string;
  size?: number;
  read(): Promise<Uint8Array>;
  /** Already extracted elsewhere (pre-extracted records): skips extraction. */
  extracted?: ExtractedDocument;
  /** A topic label given with the input; else the classifier decides. */
  topic?: string | null;
}

/** An input that could not even be read (bad manifest line, missing file). */
export interface InputProblem {
  label: string;
  reason: string;
}

export type IngestInput = IngestItem | InputProblem;

export function isProblem(input: IngestInput): input is InputProblem {
  return 'reason' in input;
}
