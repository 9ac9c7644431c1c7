import { Client } from 'typesense';
import type { ConfigurationOptions, NodeConfiguration } from 'typesense';

// One client per process, given every node of the cluster: typesense-js (ApiCall.js) sends each
// request to the next healthy node in turn, marks a node unhealthy on a 5xx, a timeout or a network
// failure and retries on the next one (numRetries more tries, retryIntervalSeconds apart), and
// tries an unhealthy node again after `healthcheckIntervalSeconds`. 4xx answers (408 and 429
// included) come back at once; retry.ts retries those that mean "not now".
//
// Timeouts, in order: a search is cut off by the server after search_cutoff_ms (half the client
// timeout, open.ts), the client gives up on a node after connectionTimeoutSeconds (5 s), imports
// after their own timeout (importer.ts, 120 s), and writes are retried for 30 s (retry.ts), past a
// Raft election (5 s).

export interface TypesenseConnection {
  /** Node URLs as in TYPESENSE_NODES: https://ts-0.internal:8108, ... */
  nodes: string[];
  apiKey: string;
  connectionTimeoutSeconds?: number;
  healthcheckIntervalSeconds?: number;
  numRetries?: number;
  retryIntervalSeconds?: number;
  /** A stand-in transport for tests (an axios adapter); the real HTTP adapter otherwise. */
  axiosAdapter?: ConfigurationOptions['axiosAdapter'];
}

export function parseNode(raw: string): NodeConfiguration {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`TYPESENSE_NODES: "${raw}" is not a URL like https://typesense-0.internal:8108`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`TYPESENSE_NODES: "${raw}" must use http or https`);
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const path = url.pathname.replace(/\/$/, '');
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port, protocol: url.protocol.slice(0, -1), ...(path ? { path } : {}) };
}

export function clientOptions(connection: TypesenseConnection): ConfigurationOptions {
  if (connection.nodes.length === 0) throw new Error('TYPESENSE_NODES: at least one node is needed');
  return {
    apiKey: connection.apiKey,
    nodes: connection.nodes.map(parseNode),
    // Spread readers over the nodes instead of every replica starting on node 0.
    randomizeNodes: true,
    connectionTimeoutSeconds: connection.connectionTimeoutSeconds ?? 5,
    healthcheckIntervalSeconds: connection.healthcheckIntervalSeconds ?? 15,
    // Enough tries to reach every node once more than the cluster size.
    numRetries: connection.numRetries ?? Math.max(3, connection.nodes.length + 1),
    retryIntervalSeconds: connection.retryIntervalSeconds ?? 0.1,
    logLevel: 'silent',
    ...(connection.axiosAdapter ? { axiosAdapter: connection.axiosAdapter } : {}),
  };
}

export function createTypesenseClient(connection: TypesenseConnection): Client {
  return new Client(clientOptions(connection));
}

/** One client per node, each bound to its node alone (to ask every node, e.g. whether it caught up). */
export function clientsPerNode(connection: TypesenseConnection): Client[] {
  return connection.nodes.map((node) => createTypesenseClient({ ...connection, nodes: [node], numRetries: 1 }));
}
