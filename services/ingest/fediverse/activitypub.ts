import { htmlToText } from './html-text.ts';
import { countOrNull, hasOptedOut, hostnameOf, isDate, isHttpUrl, tagNames, type Verdict } from './post.ts';

// ActivityPub outbox collections, e.g. the outbox.json of a Mastodon account archive (an
// OrderedCollection of Create/Announce/Update/Delete activities). The archive's actor.json, when
// given, supplies the author's name and opt-out flags that the outbox itself does not repeat.

type Json = Record<string, unknown>;

const PUBLIC = new Set(['https://www.w3.org/ns/activitystreams#Public', 'as:Public', 'Public']);
const POST_TYPES = new Set(['Note', 'Article', 'Page', 'Question']);

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
}

function idOf(value: unknown): string | null {
  if (isHttpUrl(value)) return value;
  return isObject(value) && isHttpUrl(value.id) ? value.id : null;
}

function typeIs(value: Json, types: Set<string>): boolean {
  return list(value.type).some((type) => typeof type === 'string' && types.has(type));
}

export function isOutbox(value: unknown): value is Json {
  return isObject(value) && (Array.isArray(value.orderedItems) || Array.isArray(value.items) || isObject(value.first));
}

/** The activities of a collection, including those of an embedded first page. */
export function outboxActivities(outbox: Json): unknown[] {
  const items = list(outbox.orderedItems ?? outbox.items);
  if (items.length === 0 && isObject(outbox.first)) return list(outbox.first.orderedItems ?? outbox.first.items);
  return items;
}

/** "https://social.example/users/anna" -> "@anna@social.example". */
function handleFrom(actor: Json | null, actorId: string): string {
  const host = hostnameOf(actorId) ?? 'unbekannt';
  const name = typeof actor?.preferredUsername === 'string' ? actor.preferredUsername : (new URL(actorId).pathname.split('/').filter(Boolean).at(-1) ?? '').replace(/^@/, '');
  return `@${name || 'unbekannt'}@${host}`;
}

function firstUrl(value: unknown): string | null {
  for (const item of list(value)) {
    if (isHttpUrl(item)) return item;
    if (isObject(item) && isHttpUrl(item.href)) return item.href;
  }
  return null;
}

function contentOf(object: Json): { html: string; language: string | null } {
  const map = isObject(object.contentMap) ? Object.entries(object.contentMap).filter(([, v]) => typeof v === 'string') : [];
  const html = typeof object.content === 'string' ? object.content : ((map[0]?.[1] as string | undefined) ?? '');
  return { html, language: map[0]?.[0] ?? null };
}

function totalOf(value: unknown): number | null {
  return isObject(value) ? countOrNull(value.totalItems) : null;
}

/**
 * What to do with one activity. `actors` resolves actor ids to actor objects (from actor.json or
 * from activities that embed their actor); without one, no opt-out flag is known for that author.
 */
export function activityVerdict(activity: unknown, actors: Map<string, Json>): Verdict {
  if (!isObject(activity)) return { kind: 'skip', reason: 'malformed', uri: null };
  if (typeIs(activity, new Set(['Delete']))) {
    const uri = idOf(activity.object);
    return uri ? { kind: 'delete', uri } : { kind: 'skip', reason: 'malformed', uri: null };
  }
  if (typeIs(activity, new Set(['Announce']))) return { kind: 'skip', reason: 'reblog', uri: null };
  if (!typeIs(activity, new Set(['Create', 'Update']))) return { kind: 'skip', reason: 'malformed', uri: null };
  const object = activity.object;
  if (!isObject(object) || !typeIs(object, POST_TYPES)) return { kind: 'skip', reason: 'malformed', uri: idOf(object) };
  const uri = idOf(object);
  const actorId = idOf(object.attributedTo) ?? idOf(activity.actor);
  if (!uri || !actorId || !isDate(object.published)) return { kind: 'skip', reason: 'malformed', uri };

  // Public means addressed to the Public collection in "to"; Public only in "cc" is "unlisted".
  const to = list(object.to ?? activity.to);
  if (!to.some((item) => typeof item === 'string' && PUBLIC.has(item))) return { kind: 'skip', reason: 'not_public', uri };
  const actor = actors.get(actorId) ?? (isObject(activity.actor) ? activity.actor : null);
  if (actor && hasOptedOut({ indexable: actor.indexable, discoverable: actor.discoverable, noindex: actor.noindex, note: actor.summary })) {
    return { kind: 'skip', reason: 'opted_out', uri };
  }
  const { html, language } = contentOf(object);
  if (!htmlToText(html)) return { kind: 'skip', reason: 'empty', uri };
  const statusId = /\/statuses\/(\d+)$/.exec(new URL(uri).pathname)?.[1] ?? null;
  const summary = typeof object.summary === 'string' ? htmlToText(object.summary) : '';
  const hashtags = list(object.tag).filter((tag): tag is Json => isObject(tag) && tag.type === 'Hashtag');
  return {
    kind: 'post',
    post: {
      uri,
      url: firstUrl(object.url) ?? uri,
      statusId,
      instance: hostnameOf(uri)!,
      createdAt: object.published,
      editedAt: isDate(object.updated) && object.updated !== object.published ? object.updated : null,
      html,
      contentWarning: summary || null,
      language,
      tags: tagNames(hashtags.map((tag) => tag.name)),
      inReplyTo: Boolean(object.inReplyTo),
      counts: { replies: totalOf(object.replies), reblogs: totalOf(object.shares), favourites: totalOf(object.likes) },
      author: {
        handle: handleFrom(actor, actorId),
        name: typeof actor?.name === 'string' && actor.name.trim() ? actor.name.trim() : handleFrom(actor, actorId).split('@')[1],
        url: firstUrl(actor?.url) ?? actorId,
      },
    },
  };
}

/** Actor objects by id: from actor.json and from activities that embed their actor. */
export function collectActors(outbox: Json, actorDocument: unknown): Map<string, Json> {
  const actors = new Map<string, Json>();
  if (isObject(actorDocument) && isHttpUrl(actorDocument.id)) actors.set(actorDocument.id, actorDocument);
  for (const activity of outboxActivities(outbox)) {
    if (isObject(activity) && isObject(activity.actor) && isHttpUrl(activity.actor.id)) actors.set(activity.actor.id, activity.actor);
  }
  return actors;
}
