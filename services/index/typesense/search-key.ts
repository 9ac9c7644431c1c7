import { createHash } from 'node:crypto';
import { Errors, type Client } from 'typesense';
import { translateError } from './errors.ts';

// The least-privilege key of the serving replicas (gateway, web): it may only do what a reader
// does. A reader resolves its alias (GET /aliases/:alias, action `aliases:get`), searches
// (POST /multi_search, action `documents:search`, checked against each search's `collection` —
// the alias name) and probes /health (no key needed). Actions are named as route_path::_get_action()
// in src/http_data.cpp; a key's collections are matched against the name a request uses
// (src/auth_manager.cpp auth_against_key; alias routes name no collection, src/core_api.cpp
// get_collections_for_auth).
//
// The key's value is chosen by the operator (TYPESENSE_SEARCH_KEY): POST /keys accepts a `value`
// (src/core_api.cpp post_create_key) and answers 409 when that value exists already
// (src/auth_manager.cpp create_key). Typesense never shows a key's value again, only its first 4
// characters, so the key is recognised by a hash of its value in its description: running the
// command again finds it and changes nothing.

export const SEARCH_KEY_ACTIONS = ['documents:search', 'aliases:get'] as const;
const DESCRIPTION_PREFIX = 'fundus search-only key';

export function searchKeyDescription(value: string): string {
  return `${DESCRIPTION_PREFIX} (sha256 ${createHash('sha256').update(value).digest('hex').slice(0, 16)})`;
}

interface KeyInfo {
  id: number;
  description?: string;
  actions: string[];
  collections: string[];
}

export type SearchKeyOutcome = 'created' | 'unchanged' | 'replaced';

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
}

/** Creates (or finds, or fixes) the search-only key with this value, for these collections (aliases). */
export async function ensureSearchKey(client: Client, value: string, collections: readonly string[]): Promise<SearchKeyOutcome> {
  if (value.length < 16) throw new Error('TYPESENSE_SEARCH_KEY must be at least 16 characters');
  const description = searchKeyDescription(value);
  try {
    const { keys } = (await client.keys().retrieve()) as unknown as { keys: KeyInfo[] };
    const ours = keys.filter((key) => key.description === description);
    const fitting = ours.find((key) => sameSet(key.actions, SEARCH_KEY_ACTIONS) && sameSet(key.collections, collections));
    if (fitting && ours.length === 1) return 'unchanged';
    // Same value, other rights (an older layout or other collections): replace it.
    for (const key of ours) await client.keys(key.id).delete();
    try {
      await client.keys().create({ value, description, actions: [...SEARCH_KEY_ACTIONS], collections: [...collections] } as never);
    } catch (error) {
      if (error instanceof Errors.ObjectAlreadyExists) {
        throw new Error('TYPESENSE_SEARCH_KEY: Typesense already holds a key with this value that this command did not create (or it is the admin key): choose another value');
      }
      throw error;
    }
    return ours.length ? 'replaced' : 'created';
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('TYPESENSE_SEARCH_KEY')) throw error;
    throw translateError(error, { what: 'creating the search-only key (needs the admin key in TYPESENSE_API_KEY)' });
  }
}
