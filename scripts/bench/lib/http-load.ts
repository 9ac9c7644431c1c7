// Closed-loop HTTP load on POST /v1/search: `concurrency` workers, each sending its next request
// as soon as the previous answer has fully arrived, over keep-alive connections. The client speaks
// HTTP/1.1 on plain sockets (like wrk): the load generator shares the machine's two cores with the
// server, and node:http's request and response objects cost it three times as much CPU.
import net from 'node:net';
import tls from 'node:tls';
import { cpuSecondsOf, machineBusySeconds, threadCpuOf } from './proc.ts';

export interface SearchBody {
  q: string;
  source?: string;
  topic?: string;
  max_age_months?: number;
  document_types?: string[];
  limit?: number;
  offset?: number;
}

export interface BenchQuery {
  id: string;
  class: string;
  body: SearchBody;
}

export interface Sample {
  query: number;
  ms: number;
  status: number;
  gte: boolean;
}

export interface SearchAnswer {
  total: number;
  total_relation: 'eq' | 'gte';
  has_more: boolean;
  results: { document_id: string; url: string; match_type: string }[];
}

export interface LoadRun {
  concurrency: number;
  samples: Sample[];
  seconds: number;
  /** CPU seconds the server process used during the run (all threads). */
  serverCpuSeconds: number;
  /** CPU seconds this load generator used during the run. */
  clientCpuSeconds: number;
  /** CPU seconds the server used per thread name during the run. */
  serverThreadCpuSeconds: Record<string, number>;
  /** CPU seconds the whole machine was busy during the run (server, client and anything else). */
  machineBusySeconds: number;
  /** Parsed answers of the first round, by query index (only when asked for). */
  answers: Map<number, SearchAnswer>;
}

export interface Reply {
  status: number;
  ms: number;
  body: Buffer | null;
  tail: string;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');
const TAIL_BYTES = 48;

/** One keep-alive connection, one request at a time. */
class Connection {
  readonly socket: net.Socket;
  closed = false;
  private buffered: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (reply: Reply) => void; reject: (error: Error) => void; keepBody: boolean; started: number } | null = null;

  constructor(port: number, secure?: TlsTarget) {
    // HTTPS (through the kit's Caddy): HTTP/1.1 over TLS, trusting only the given root certificate.
    this.socket = secure
      ? tls.connect({ host: '127.0.0.1', port, servername: secure.servername, ca: secure.ca, ALPNProtocols: ['http/1.1'] }).setNoDelay(true)
      : net.connect({ host: '127.0.0.1', port, noDelay: true });
    this.socket.on('data', (chunk: Buffer) => {
      this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
      try {
        this.parse();
      } catch (error) {
        fail(error as Error);
        this.socket.destroy();
      }
    });
    const fail = (error: Error) => {
      this.closed = true;
      const waiting = this.waiting;
      this.waiting = null;
      waiting?.reject(error);
    };
    this.socket.on('error', fail);
    this.socket.on('close', () => fail(new Error('connection closed before the answer was complete')));
  }

  send(request: Buffer, keepBody: boolean): Promise<Reply> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject, keepBody, started: performance.now() };
      this.socket.write(request);
    });
  }

  /** Completes the waiting request once its whole answer (Content-Length or chunked) is buffered. */
  private parse(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    const headEnd = this.buffered.indexOf(HEAD_END);
    if (headEnd < 0) return;
    const head = this.buffered.toString('latin1', 0, headEnd);
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    const bodyStart = headEnd + HEAD_END.length;
    let body: Buffer;
    let consumed: number;
    if (length) {
      consumed = bodyStart + Number(length[1]);
      if (this.buffered.length < consumed) return;
      body = this.buffered.subarray(bodyStart, consumed);
    } else if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
      const chunks: Buffer[] = [];
      let at = bodyStart;
      for (;;) {
        const lineEnd = this.buffered.indexOf(CRLF, at);
        if (lineEnd < 0) return;
        const size = Number.parseInt(this.buffered.toString('latin1', at, lineEnd), 16);
        if (Number.isNaN(size)) throw new Error('malformed chunked answer');
        if (size === 0) {
          // The last chunk, then optional trailers, then an empty line.
          const end = this.buffered.indexOf(HEAD_END, lineEnd);
          if (end < 0) return;
          consumed = end + HEAD_END.length;
          break;
        }
        const dataEnd = lineEnd + CRLF.length + size;
        if (this.buffered.length < dataEnd + CRLF.length) return;
        chunks.push(this.buffered.subarray(lineEnd + CRLF.length, dataEnd));
        at = dataEnd + CRLF.length;
      }
      body = Buffer.concat(chunks);
    } else {
      throw new Error(`answer with neither Content-Length nor chunked encoding (status ${status})`);
    }
    const ms = performance.now() - waiting.started;
    this.waiting = null;
    const reply = { status, ms, body: waiting.keepBody ? Buffer.from(body) : null, tail: body.toString('latin1', Math.max(0, body.length - TAIL_BYTES)) };
    this.buffered = this.buffered.subarray(consumed);
    if (/\r\nconnection: *close/i.test(head)) {
      this.closed = true;
      this.socket.end();
    }
    waiting.resolve(reply);
  }
}

/** An HTTPS target on loopback: the name its certificate is for, and the only root trusted. */
export interface TlsTarget {
  servername: string;
  ca: string;
}

export class SearchClient {
  private readonly port: number;
  private readonly host: string;
  private readonly secure?: TlsTarget;
  private readonly authorization: string;
  private readonly idle: Connection[] = [];
  private readonly open = new Set<Connection>();
  private readonly requests = new WeakMap<Buffer, Buffer>();

  /** Opens a connection for every request in flight and keeps it for the next one. */
  constructor(baseUrl: string, key: string, ca?: string) {
    const url = new URL(baseUrl);
    if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost') throw new Error(`the benchmark only talks to 127.0.0.1, not ${url.hostname}`);
    this.port = Number(url.port);
    this.host = `${url.hostname}:${this.port}`;
    if (url.protocol === 'https:') {
      if (!ca) throw new Error('an https target needs the root certificate it is to trust');
      this.secure = { servername: url.hostname, ca };
    }
    this.authorization = `Bearer ${key}`;
  }

  /** The whole request for a body, built once per body. */
  private requestFor(body: Buffer): Buffer {
    let request = this.requests.get(body);
    if (!request) {
      const head = `POST /v1/search HTTP/1.1\r\nHost: ${this.host}\r\nContent-Type: application/json\r\nAuthorization: ${this.authorization}\r\nContent-Length: ${body.length}\r\n\r\n`;
      request = Buffer.concat([Buffer.from(head, 'latin1'), body]);
      this.requests.set(body, request);
    }
    return request;
  }

  /** Sends one search; `keepBody` collects the whole answer, otherwise only its last bytes are kept. */
  async send(body: Buffer, keepBody = false): Promise<Reply> {
    const connection = this.idle.pop() ?? this.connect();
    try {
      const reply = await connection.send(this.requestFor(body), keepBody);
      if (connection.closed) this.open.delete(connection);
      else this.idle.push(connection);
      return reply;
    } catch (error) {
      this.open.delete(connection);
      connection.socket.destroy();
      throw error;
    }
  }

  private connect(): Connection {
    const connection = new Connection(this.port, this.secure);
    this.open.add(connection);
    return connection;
  }

  close(): void {
    for (const connection of this.open) connection.socket.destroy();
    this.open.clear();
    this.idle.length = 0;
  }
}

/** The answer's `total_relation` is its last field: read it from the tail without parsing. */
function isGte(tail: string): boolean {
  return tail.includes('"total_relation":"gte"');
}

/**
 * Runs `rounds` passes over the mix with `concurrency` workers taking the next request in turn,
 * stopping early once `maxSeconds` have passed (a bounded loop either way).
 */
export async function runLoad(options: {
  baseUrl: string;
  key: string;
  queries: BenchQuery[];
  concurrency: number;
  rounds: number;
  maxSeconds: number;
  serverPid: number;
  parseFirstRound?: boolean;
  /** The root certificate to trust when baseUrl is https:// (e.g. Caddy's local CA). */
  ca?: string;
}): Promise<LoadRun> {
  const { queries, concurrency, rounds } = options;
  const bodies = queries.map((q) => Buffer.from(JSON.stringify(q.body)));
  const client = new SearchClient(options.baseUrl, options.key, options.ca);
  const total = queries.length * rounds;
  const samples: Sample[] = [];
  const answers = new Map<number, SearchAnswer>();
  let next = 0;
  const started = performance.now();
  const deadline = started + options.maxSeconds * 1000;
  const serverCpu = cpuSecondsOf(options.serverPid);
  const serverThreads = threadCpuOf(options.serverPid);
  const machineBusy = machineBusySeconds();
  const clientCpu = process.cpuUsage();
  const worker = async () => {
    while (next < total && performance.now() < deadline) {
      const item = next++;
      const query = item % queries.length;
      const parse = Boolean(options.parseFirstRound) && item < queries.length;
      const reply = await client.send(bodies[query], parse);
      samples.push({ query, ms: reply.ms, status: reply.status, gte: isGte(reply.tail) });
      if (parse && reply.status === 200 && reply.body) answers.set(query, JSON.parse(reply.body.toString('utf8')) as SearchAnswer);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    client.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(clientCpu);
  const threadsAfter = threadCpuOf(options.serverPid);
  const serverThreadCpuSeconds = Object.fromEntries(Object.entries(threadsAfter).map(([name, s]) => [name, s - (serverThreads[name] ?? 0)]));
  return {
    concurrency,
    samples,
    seconds,
    serverCpuSeconds: cpuSecondsOf(options.serverPid) - serverCpu,
    clientCpuSeconds: (used.user + used.system) / 1e6,
    serverThreadCpuSeconds,
    machineBusySeconds: machineBusySeconds() - machineBusy,
    answers,
  };
}
