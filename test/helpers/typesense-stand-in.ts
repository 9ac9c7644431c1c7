// A stand-in Typesense cluster for tests: one or more nodes, each with its own copy of the data
// (typesense-node-state.ts), reachable over real HTTP on 127.0.0.1 (`listen()`) or in-process as an
// axios adapter (`adapter`, for unit tests that need no sockets). What a cluster does that the
// adapter must cope with follows Typesense's source (github.com/typesense/typesense, v30):
// - writes go through the leader: a follower forwards them (src/raft_server.cpp
//   ReplicationState::write → write_to_leader); with no leader: 500 "Could not find a leader.";
// - followers apply the leader's log later (replication lag) and answer reads from their own state;
//   past healthy_read_lag (1000) unapplied entries, or when not ready, a node answers 503
//   {"message": "Not Ready or Lagging"} (src/http_server.cpp, readiness check before auth);
// - /health needs no key and answers {"ok": false} with 503 while not ready (src/core_api.cpp get_health);
// - API keys: the bootstrap key may do anything; other keys only their actions on their
//   collections (src/auth_manager.cpp auth_against_key; actions from src/http_data.cpp), else 401;
// - a stopped node refuses connections.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConfigurationOptions } from 'typesense';
import { actionOf, isWriteRequest, TypesenseNodeState, type Collection, type Reply } from './typesense-node-state.ts';

export type StandInAdapter = NonNullable<ConfigurationOptions['axiosAdapter']>;

export interface RecordedRequest {
  method: string;
  path: string;
  node: string;
}

/** One request and its answer as seen on the wire (for the API-description checks). */
export interface Exchange {
  method: string;
  path: string;
  params: Record<string, string>;
  body: string;
  status: number;
  response: unknown;
}

interface Entry {
  method: string;
  parts: string[];
  params: Record<string, string>;
  body: string;
}

export interface StandInOptions {
  /** Number of nodes (default 1); node 0 is the first leader. */
  nodes?: number;
  /** The bootstrap (admin) key; when unset any non-empty key counts as the bootstrap key. */
  apiKey?: string;
  /** Followers apply each log entry this long after the leader (0: at once). */
  replicationDelayMs?: number;
  /** How long an election takes after the leader stops (default 1000 ms). */
  electionMs?: number;
}

const AUTH_HEADER = 'x-typesense-api-key';
const HEALTHY_READ_LAG = 1000;

class StandInNode {
  readonly state = new TypesenseNodeState();
  applied = 0;
  running = true;
  ready = true;
  /** Followers hold back log entries while true (a lagging follower). */
  held = false;
  server: Server | null = null;
  port = 0;
  readonly index: number;
  constructor(index: number) {
    this.index = index;
  }
}

export class TypesenseStandIn {
  readonly nodes: StandInNode[];
  readonly requests: RecordedRequest[] = [];
  readonly exchanges: Exchange[] = [];
  /** In-process mode: hosts ("host:port") that refuse connections. */
  readonly down = new Set<string>();
  private readonly log: Entry[] = [];
  private leaderIndex: number | null = 0;
  private failures: { count: number; status: number; message?: string; match: (method: string, path: string) => boolean }[] = [];
  private readonly options: StandInOptions;
  private readonly hostNodes = new Map<string, number>();
  private electionTimer: NodeJS.Timeout | null = null;

  constructor(options: StandInOptions = {}) {
    this.options = options;
    this.nodes = Array.from({ length: options.nodes ?? 1 }, (_v, i) => new StandInNode(i));
  }

  /** The leader's data (what every node holds once replication caught up). */
  get collections(): Map<string, Collection> {
    return this.nodes[this.leaderIndex ?? 0].state.collections;
  }

  get aliases(): Map<string, string> {
    return this.nodes[this.leaderIndex ?? 0].state.aliases;
  }

  get leader(): number | null {
    return this.leaderIndex;
  }

  /** The next `count` requests matching `match` fail with `status` (and `message`) before reaching a node. */
  failNext(count: number, status = 503, match: (method: string, path: string) => boolean = () => true, message?: string): void {
    this.failures.push({ count, status, match, message });
  }

  // ---- cluster controls ----

  /** Followers stop applying the log (true) or apply everything they hold back (false). */
  holdReplication(held: boolean, nodes = this.followers()): void {
    for (const i of nodes) {
      this.nodes[i].held = held;
      if (!held) this.catchUp(i);
    }
  }

  followers(): number[] {
    return this.nodes.filter((node) => node.index !== this.leaderIndex).map((node) => node.index);
  }

  /** Unapplied log entries of a node. */
  lag(i: number): number {
    return this.log.length - this.nodes[i].applied;
  }

  setReady(i: number, ready: boolean): void {
    this.nodes[i].ready = ready;
  }

  /** Stops a node: its port refuses connections; if it led, the others elect a leader after electionMs. */
  async stopNode(i: number): Promise<void> {
    const node = this.nodes[i];
    node.running = false;
    await new Promise<void>((resolve) => (node.server ? node.server.close(() => resolve()) : resolve()));
    node.server?.closeAllConnections();
    node.server = null;
    if (this.leaderIndex === i) this.startElection();
  }

  /** Starts a stopped node again on its port; it catches up with the log. */
  async startNode(i: number): Promise<void> {
    const node = this.nodes[i];
    node.running = true;
    if (this.nodes.some((n) => n.port)) await this.listenNode(node, node.port);
    this.catchUp(i);
  }

  /** Drops the leader for `ms` (an election): writes fail with 500 "Could not find a leader." meanwhile. */
  startElection(ms = this.options.electionMs ?? 1000): void {
    this.leaderIndex = null;
    if (this.electionTimer) clearTimeout(this.electionTimer);
    this.electionTimer = setTimeout(() => {
      this.electionTimer = null;
      const candidate = this.nodes.filter((node) => node.running).sort((a, b) => b.applied - a.applied)[0];
      if (candidate) {
        this.catchUp(candidate.index);
        this.leaderIndex = candidate.index;
      }
    }, ms);
    this.electionTimer.unref();
  }

  private catchUp(i: number): void {
    const node = this.nodes[i];
    while (node.applied < this.log.length) {
      const entry = this.log[node.applied++];
      node.state.handle(entry.method, entry.parts, entry.params, entry.body);
    }
  }

  private replicate(): void {
    for (const i of this.followers()) {
      const node = this.nodes[i];
      if (!node.running || node.held) continue;
      const delay = this.options.replicationDelayMs ?? 0;
      if (delay <= 0) this.catchUp(i);
      else setTimeout(() => !node.held && node.running && this.catchUp(i), delay).unref();
    }
  }

  // ---- one request on one node ----

  private failure(method: string, path: string): Reply | null {
    const failure = this.failures.find((f) => f.count > 0 && f.match(method, path));
    if (!failure) return null;
    failure.count--;
    return { status: failure.status, body: { message: failure.message ?? (failure.status === 503 ? 'Not Ready or Lagging' : `injected failure ${failure.status}`) } };
  }

  private authorized(key: string | undefined, node: StandInNode, method: string, parts: string[], params: Record<string, string>, body: string): boolean {
    if (!key) return false;
    if (this.options.apiKey === undefined || key === this.options.apiKey) return true;
    const found = node.state.keys.get(key);
    if (!found || Date.now() / 1000 > found.expires_at) return false;
    const action = actionOf(method, parts);
    const allowedAction = found.actions.some((allowed) => allowed === '*' || allowed === action || (allowed.endsWith(':*') && action.startsWith(allowed.slice(0, -1))));
    if (!allowedAction) return false;
    // src/core_api.cpp get_collections_for_auth: the collections a request names (each search of
    // a multi_search, the created collection, the :collection of the path), else "" (always allowed).
    let names: string[] = [];
    if (parts[0] === 'multi_search') {
      try {
        names = ((JSON.parse(body).searches ?? []) as { collection?: string }[]).map((search) => search.collection ?? params.collection ?? '');
      } catch {
        names = [''];
      }
    } else if (parts[0] === 'collections' && parts.length === 1 && method === 'POST') {
      try {
        names = [String(JSON.parse(body).name ?? '')];
      } catch {
        names = [''];
      }
    } else if (parts[0] === 'collections' && parts.length >= 2) names = [parts[1]];
    if (!names.length) names = [''];
    const fullMatch = (value: string, pattern: string) => {
      try {
        return new RegExp(`^(?:${pattern})$`).test(value);
      } catch {
        return false;
      }
    };
    return names.every((name) => found.collections.some((allowed) => allowed === '*' || allowed === name || name === '' || fullMatch(name, allowed)));
  }

  private onNode(node: StandInNode, method: string, path: string, params: Record<string, string>, body: string, key: string | undefined): Reply {
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    const injected = this.failure(method, path);
    if (injected) return injected;
    const root = parts[0] ?? '';
    if (root === 'health') return node.ready ? { status: 200, body: { ok: true } } : { status: 503, body: { ok: false } };
    const known = ['collections', 'multi_search', 'aliases', 'keys'].includes(root);
    if (!known) return { status: 404, body: { message: 'Not Found' } };
    const write = isWriteRequest(method, parts);
    const lagging = node.index !== this.leaderIndex && this.lag(node.index) > HEALTHY_READ_LAG;
    if (!node.ready || (!write && lagging)) return { status: 503, body: { message: 'Not Ready or Lagging' } };
    if (!this.authorized(key, node, method, parts, params, body)) {
      return { status: 401, body: { message: 'Forbidden - a valid `x-typesense-api-key` header must be sent.' } };
    }
    if (!write) return node.state.handle(method, parts, params, body);
    if (this.leaderIndex === null) return { status: 500, body: { message: 'Could not find a leader.' } };
    const leader = this.nodes[this.leaderIndex];
    const reply = leader.state.handle(method, parts, params, body);
    leader.applied++;
    this.log.push({ method, parts, params, body });
    this.replicate();
    return reply;
  }

  // ---- transports ----

  /** In-process transport: every host maps to a node (in order of first use, wrapping around). */
  readonly adapter: StandInAdapter = (async (config: { url?: string; method?: string; params?: Record<string, unknown>; data?: unknown; headers?: Record<string, unknown> }) => {
    const url = new URL(config.url ?? '');
    const method = (config.method ?? 'get').toUpperCase();
    const host = url.host;
    this.requests.push({ method, path: url.pathname, node: host });
    if (this.down.has(host)) throw Object.assign(new Error(`connect ECONNREFUSED ${host}`), { code: 'ECONNREFUSED' });
    if (!this.hostNodes.has(host)) this.hostNodes.set(host, this.hostNodes.size % this.nodes.length);
    const node = this.nodes[this.hostNodes.get(host)!];
    if (!node.running) throw Object.assign(new Error(`connect ECONNREFUSED ${host}`), { code: 'ECONNREFUSED' });
    const params: Record<string, string> = { ...Object.fromEntries(url.searchParams) };
    for (const [k, v] of Object.entries(config.params ?? {})) if (v !== undefined) params[k] = String(v);
    const body = config.data === undefined ? '' : typeof config.data === 'string' ? config.data : JSON.stringify(config.data);
    const headers = (config.headers ?? {}) as Record<string, unknown>;
    const key = Object.entries(headers).find(([name]) => name.toLowerCase() === AUTH_HEADER)?.[1] as string | undefined;
    const reply = this.onNode(node, method, url.pathname, params, body, key);
    this.exchanges.push({ method, path: url.pathname, params, body, status: reply.status, response: reply.body });
    const data = reply.text ? String(reply.body) : JSON.stringify(reply.body);
    return { data, status: reply.status, statusText: String(reply.status), headers: { 'content-type': reply.text ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8' }, config, request: {} };
  }) as unknown as StandInAdapter;

  /** Starts one HTTP server per node on 127.0.0.1; returns their URLs (node order). */
  async listen(): Promise<string[]> {
    for (const node of this.nodes) await this.listenNode(node, 0);
    return this.urls();
  }

  urls(): string[] {
    return this.nodes.map((node) => `http://127.0.0.1:${node.port}`);
  }

  private async listenNode(node: StandInNode, port: number): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const method = (req.method ?? 'GET').toUpperCase();
        const body = Buffer.concat(chunks).toString('utf8');
        const params = Object.fromEntries(url.searchParams);
        this.requests.push({ method, path: url.pathname, node: `127.0.0.1:${node.port}` });
        const key = req.headers[AUTH_HEADER] as string | undefined;
        let reply: Reply;
        try {
          reply = this.onNode(node, method, url.pathname, params, body, key);
        } catch (error) {
          reply = { status: 500, body: { message: String(error) } };
        }
        this.exchanges.push({ method, path: url.pathname, params, body, status: reply.status, response: reply.body });
        const send = () => {
          if (!node.running) return void res.destroy();
          res.writeHead(reply.status, { 'content-type': reply.text ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8' });
          res.end(reply.text ? String(reply.body) : JSON.stringify(reply.body));
        };
        const delay = url.pathname === '/multi_search' || url.pathname.endsWith('/search') ? Math.min(node.state.searchDelayMs, Number(params.search_cutoff_ms ?? searchCutoffOf(body) ?? 30_000)) : 0;
        if (delay > 0) setTimeout(send, delay).unref();
        else send();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    node.server = server;
    node.port = (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    if (this.electionTimer) clearTimeout(this.electionTimer);
    await Promise.all(
      this.nodes.map(
        (node) =>
          new Promise<void>((resolve) => {
            if (!node.server) return resolve();
            node.server.close(() => resolve());
            node.server.closeAllConnections();
          }),
      ),
    );
  }
}

/** The smallest search_cutoff_ms of a multi_search body (how long the slowest search may take). */
function searchCutoffOf(body: string): number | undefined {
  try {
    const values = ((JSON.parse(body).searches ?? []) as { search_cutoff_ms?: number }[]).map((search) => search.search_cutoff_ms).filter((v): v is number => typeof v === 'number');
    return values.length ? Math.min(...values) : undefined;
  } catch {
    return undefined;
  }
}
