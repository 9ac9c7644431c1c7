import { htmlToText } from './html-text.ts';

// One public fediverse post, whether it came from the Mastodon REST API or an ActivityPub outbox.
// Both readers turn their input into verdicts: a post to store, a post to drop (and to remove if we
// hold it, because the source now says it is not public or its author opted out), or a delete.

export interface FediversePost {
  /** The ActivityPub id of the post; the document id is derived from it (Delete activities name it). */
  uri: string;
  /** The link a person opens (the post's page on its instance). */
  url: string;
  /** The instance-local id of the REST API, when known (lets `fetch` ask whether the post still exists). */
  statusId: string | null;
  instance: string;
  createdAt: string;
  editedAt: string | null;
  html: string;
  contentWarning: string | null;
  language: string | null;
  tags: string[];
  inReplyTo: boolean;
  counts: { replies: number | null; reblogs: number | null; favourites: number | null };
  author: { handle: string; name: string; url: string | null };
}

export type SkipReason = 'not_public' | 'opted_out' | 'reblog' | 'empty' | 'malformed';

export type Verdict =
  | { kind: 'post'; post: FediversePost }
  /** `uri` is set when the skipped item names a post we may hold (it must then be removed). */
  | { kind: 'skip'; reason: SkipReason; uri: string | null }
  | { kind: 'delete'; uri: string };

export interface AccountFlags {
  indexable?: unknown;
  discoverable?: unknown;
  noindex?: unknown;
  /** The bio, HTML. */
  note?: unknown;
}

// "#nobot" in a bio is the fediverse's convention for "no automated processing of my posts";
// #noindex and #nosearch say the same about search in particular.
const NO_BOT_TAG = /(^|[^\p{L}\p{N}_])#(nobot|noindex|nosearch)(?![\p{L}\p{N}_])/iu;

/**
 * Has the account opted out of search or discovery? Only explicit signals count: `indexable: false`,
 * `discoverable: false`, `noindex: true` or a #nobot bio. A missing flag (older servers) is no opt-out.
 */
export function hasOptedOut(account: AccountFlags): boolean {
  if (account.indexable === false || account.discoverable === false || account.noindex === true) return true;
  return typeof account.note === 'string' && NO_BOT_TAG.test(htmlToText(account.note));
}

export function hostnameOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase() || null;
  } catch {
    return null;
  }
}

export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

export function isDate(value: unknown): value is string {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value));
}

export function countOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}

/** Tag names without "#", lower-case, once each. */
export function tagNames(names: unknown[]): string[] {
  const tags = names.filter((name): name is string => typeof name === 'string').map((name) => name.replace(/^#/, '').trim().toLowerCase());
  return [...new Set(tags.filter(Boolean))];
}
