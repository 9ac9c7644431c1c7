import { htmlToText } from './html-text.ts';
import { countOrNull, hasOptedOut, hostnameOf, isDate, isHttpUrl, tagNames, type Verdict } from './post.ts';

// Mastodon REST status entities (GET /api/v1/timelines/public, /api/v1/statuses/:id), as documented
// at docs.joinmastodon.org/entities/Status. Fields are read defensively: the input is someone else's JSON.

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Does this JSON value look like a Mastodon status? */
export function isMastodonStatus(value: unknown): value is Json {
  return isObject(value) && 'account' in value && 'content' in value && 'visibility' in value;
}

export interface StatusOptions {
  /**
   * The instance the statuses were read from. Local posts (an `acct` without "@") belong to it, which
   * matters when an instance serves its API on another host name than its ActivityPub ids.
   */
  instance?: string;
}

/** What to do with one status: store it, skip it (and remove it if held), or nothing usable. */
export function statusVerdict(status: unknown, options: StatusOptions = {}): Verdict {
  if (!isMastodonStatus(status)) return { kind: 'skip', reason: 'malformed', uri: null };
  const uri = isHttpUrl(status.uri) ? status.uri : isHttpUrl(status.url) ? status.url : null;
  if (status.reblog) return { kind: 'skip', reason: 'reblog', uri: null };
  const account = status.account;
  if (!uri || !isObject(account) || !isDate(status.created_at) || typeof status.content !== 'string') {
    return { kind: 'skip', reason: 'malformed', uri };
  }
  // "public" only: unlisted posts are visible by link but their authors kept them off public timelines.
  if (status.visibility !== 'public') return { kind: 'skip', reason: 'not_public', uri };
  if (hasOptedOut(account)) return { kind: 'skip', reason: 'opted_out', uri };
  if (!htmlToText(status.content)) return { kind: 'skip', reason: 'empty', uri };

  const acct = typeof account.acct === 'string' ? account.acct : typeof account.username === 'string' ? account.username : '';
  const local = acct !== '' && !acct.includes('@');
  const instance = (local && options.instance) || hostnameOf(uri)!;
  const handle = acct.includes('@') ? `@${acct}` : `@${acct || 'unbekannt'}@${instance}`;
  const name = typeof account.display_name === 'string' && account.display_name.trim() ? account.display_name.trim() : acct.split('@')[0];
  const spoiler = typeof status.spoiler_text === 'string' ? status.spoiler_text.trim() : '';
  return {
    kind: 'post',
    post: {
      uri,
      url: isHttpUrl(status.url) ? status.url : uri,
      statusId: typeof status.id === 'string' || typeof status.id === 'number' ? String(status.id) : null,
      instance,
      createdAt: status.created_at,
      editedAt: isDate(status.edited_at) ? status.edited_at : null,
      html: status.content,
      contentWarning: spoiler || null,
      language: typeof status.language === 'string' ? status.language : null,
      tags: tagNames(Array.isArray(status.tags) ? status.tags.map((tag) => (isObject(tag) ? tag.name : null)) : []),
      inReplyTo: status.in_reply_to_id !== null && status.in_reply_to_id !== undefined,
      counts: {
        replies: countOrNull(status.replies_count),
        reblogs: countOrNull(status.reblogs_count),
        favourites: countOrNull(status.favourites_count),
      },
      author: { handle, name, url: isHttpUrl(account.url) ? account.url : null },
    },
  };
}
