import { Errors, type Client } from 'typesense';
import { collectionSchema, TYPESENSE_SCHEMA_VERSION, versionedName, versionOf } from './schema.ts';
import { translateError } from './errors.ts';
import { WRITE_RETRY, withRetry, type RetryPolicy } from './retry.ts';

// Creating, finding and swapping the versioned collections behind an alias.

export async function aliasTarget(client: Client, alias: string): Promise<string | null> {
  try {
    const found = await client.aliases(alias).retrieve();
    return found.collection_name;
  } catch (error) {
    if (error instanceof Errors.ObjectNotFound) return null;
    throw translateError(error, { what: `alias ${alias}` });
  }
}

export async function collectionExists(client: Client, name: string): Promise<boolean> {
  try {
    await client.collections(name).retrieve();
    return true;
  } catch (error) {
    if (error instanceof Errors.ObjectNotFound) return false;
    throw translateError(error, { what: `collection ${name}` });
  }
}

export async function createCollection(client: Client, name: string, retry: RetryPolicy = WRITE_RETRY): Promise<void> {
  try {
    await withRetry(retry, async () => {
      try {
        await client.collections().create(collectionSchema(name) as never);
      } catch (error) {
        // A retried create whose first attempt went through.
        if (!(error instanceof Errors.ObjectAlreadyExists)) throw error;
      }
    });
  } catch (error) {
    throw translateError(error, { what: `creating collection ${name}` });
  }
}

/**
 * Where the alias points, as every reachable node agrees. One read may reach a follower that has
 * not applied the latest alias change (src/raft_server.cpp: followers answer reads from their own
 * state), and a writer acting on that would create or move the alias wrongly. Nodes apply the same
 * log in order, so they agree once the followers caught up; nodes that do not answer are left out.
 */
export async function agreedAliasTarget(nodeClients: Client[], alias: string, timeoutMs = 60_000): Promise<string | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answers = await Promise.allSettled(nodeClients.map((client) => aliasTarget(client, alias)));
    const values = answers.filter((answer) => answer.status === 'fulfilled').map((answer) => (answer as PromiseFulfilledResult<string | null>).value);
    if (values.length && values.every((value) => value === values[0])) return values[0];
    if (!values.length) throw (answers[0] as PromiseRejectedResult).reason;
    if (Date.now() >= deadline) throw new Error(`the nodes disagree on where alias ${alias} points (${values.map(String).join(', ')}) after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Waits until every reachable node points the alias at `collection`. */
export async function untilAliasEverywhere(nodeClients: Client[], alias: string, collection: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await agreedAliasTarget(nodeClients, alias, Math.max(0, deadline - Date.now()))) !== collection) {
    if (Date.now() >= deadline) throw new Error(`alias ${alias} did not reach every node within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Points the alias at `collection` in one call: readers switch from one request to the next. */
export async function swapAlias(client: Client, alias: string, collection: string, retry: RetryPolicy = WRITE_RETRY, nodeClients?: Client[]): Promise<string | null> {
  const previous = nodeClients?.length ? await agreedAliasTarget(nodeClients, alias) : await aliasTarget(client, alias);
  try {
    await withRetry(retry, () => client.aliases().upsert(alias, { collection_name: collection }));
  } catch (error) {
    throw translateError(error, { what: `pointing alias ${alias} at ${collection}` });
  }
  return previous;
}

export async function dropCollection(client: Client, name: string): Promise<void> {
  try {
    await client.collections(name).delete();
  } catch (error) {
    if (!(error instanceof Errors.ObjectNotFound)) throw translateError(error, { what: `dropping collection ${name}` });
  }
}

export class SchemaVersionError extends Error {
  constructor(alias: string, collection: string, version: number | null) {
    super(
      `Typesense alias ${alias} points at ${collection} (layout version ${version ?? 'unknown'}); this program reads layout version ${TYPESENSE_SCHEMA_VERSION}: ` +
        `rebuild with \`fundus index copy --from sqlite --to typesense\` (the alias swaps when the copy is complete)`,
    );
    this.name = 'SchemaVersionError';
  }
}

/**
 * The collection to use for `alias`. A writer creates `<alias>_v<N>` and the alias on first use;
 * a reader never creates anything and fails with a clear message instead. A collection of another
 * layout version is refused: it is replaced by a rebuild, never changed in place.
 */
export async function resolveCollection(client: Client, alias: string, options: { create: boolean; nodeClients?: Client[] }): Promise<string> {
  // A writer must not act on a lagging follower's answer; a reader only reads.
  const target = options.create && options.nodeClients?.length ? await agreedAliasTarget(options.nodeClients, alias) : await aliasTarget(client, alias);
  if (target) {
    const version = versionOf(alias, target);
    if (version !== TYPESENSE_SCHEMA_VERSION) throw new SchemaVersionError(alias, target, version);
    return target;
  }
  if (!options.create) {
    throw new Errors.ObjectNotFound(`Typesense alias ${alias} does not exist yet: ingest or \`fundus index copy\` creates it`);
  }
  const name = versionedName(alias);
  if (!(await collectionExists(client, name))) await createCollection(client, name);
  await swapAlias(client, alias, name, WRITE_RETRY, options.nodeClients);
  // The writer's next reads may go to any node: wait until every node has the alias (and so the
  // collection, created before it in the log), or they would answer "Collection not found".
  if (options.nodeClients?.length) await untilAliasEverywhere(options.nodeClients, alias, name);
  return name;
}
