import type { StoredDocument } from '../../core/document.ts';
import { contentHashOf } from '../../core/text.ts';
import { documentIdForUrl, normalizeUrl, sourceIdFor } from '../../core/urls.ts';
import { decideLanguage } from '../extract/language.ts';
import { htmlToText } from './html-text.ts';
import type { FediversePost } from './post.ts';

// A post as a record of the fediverse index (the same index port and adapter as the web index).
// host and source_domain are the instance, so the index's host filter is the instance filter and
// listSources() lists instances. Age and "newest first" are measured by the creation time: an edit
// does not make an old post new (modifiedAt stays null; the edit time is kept in `content`).

/** The fields of `content` that the social endpoints read back. */
export interface PostContent {
  author_handle: string;
  author_name: string;
  author_url: string | null;
  instance: string;
  tags: string[];
  original_url: string;
  status_id: string | null;
  created_at: string;
  edited_at: string | null;
  content_warning: string | null;
  in_reply_to: boolean;
  replies_count: number | null;
  reblogs_count: number | null;
  favourites_count: number | null;
}

export function documentIdForPost(uri: string): string {
  return documentIdForUrl(uri);
}

export function postToDocument(post: FediversePost, now: Date): StoredDocument {
  const text = htmlToText(post.html);
  const content: PostContent = {
    author_handle: post.author.handle,
    author_name: post.author.name,
    author_url: post.author.url,
    instance: post.instance,
    tags: post.tags,
    original_url: post.url,
    status_id: post.statusId,
    created_at: post.createdAt,
    edited_at: post.editedAt,
    content_warning: post.contentWarning,
    in_reply_to: post.inReplyTo,
    replies_count: post.counts.replies,
    reblogs_count: post.counts.reblogs,
    favourites_count: post.counts.favourites,
  };
  const dates: Record<string, string> = { created_at: post.createdAt };
  if (post.editedAt) dates.edited_at = post.editedAt;
  return {
    id: documentIdForPost(post.uri),
    url: post.url,
    canonicalUrl: normalizeUrl(post.uri),
    host: post.instance,
    sourceDomain: post.instance,
    sourceId: sourceIdFor(post.instance),
    title: post.author.name,
    text,
    contentType: 'text/html',
    documentType: 'html',
    language: decideLanguage(text, post.language),
    publishedAt: new Date(post.createdAt).toISOString(),
    modifiedAt: null,
    contentDate: null,
    dates,
    fetchedAt: now.toISOString(),
    contentHash: contentHashOf(text),
    fingerprint: null,
    topic: null,
    isNews: false,
    content: content as unknown as Record<string, unknown>,
    duplicateOf: null,
    changedAt: now.toISOString(),
  };
}

/** The version of a post: its last edit, else its creation. */
export function versionOf(doc: StoredDocument): number {
  const edited = (doc.content as Partial<PostContent>).edited_at;
  return Date.parse(edited ?? doc.publishedAt ?? '') || 0;
}

/** Same post, same content: nothing to write (fetch and change times aside). */
export function samePost(a: StoredDocument, b: StoredDocument): boolean {
  const strip = ({ fetchedAt: _f, changedAt: _c, ...rest }: StoredDocument) => JSON.stringify(rest);
  return strip(a) === strip(b);
}
