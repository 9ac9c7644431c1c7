// Closed-loop HTTP load on POST /v1/search: `concurrency` workers, each sending its next request
// as soon as the previous answer has fully arrived, over keep-alive connections (node:http Agent,
// the cheapest client Node has: the load generator shares the machine's cores with the server).
import http from 'node:http';
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

interface Reply {
  status: number;
  ms: number;
  body: Buffer | null;
  tail: string;
}

export class SearchClient {
  private readonly agent: http.Agent;
  private readonly port: number;
  private readonly headers: Record<string, string>;

  constructor(baseUrl: string, key: string, maxSockets: number) {
    const url = new URL(baseUrl);
    if (url.hostname !== '127.0.0.1') throw new Error(`the benchmark only talks to 127.0.0.1, not ${url.hostname}`);
    this.port = Number(url.port);
    this.agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
    this.headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  }

  /** Sends one search; `keepBody` collects the whole answer, otherwise only its last bytes are kept. */
  send(body: Buffer, keepBody = false): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const request = http.request(
        { host: '127.0.0.1', port: this.port, path: '/v1/search', method: 'POST', agent: this.agent, headers: { ...this.headers, 'content-length': String(body.length) } },
        (response) => {
          const chunks: Buffer[] = [];
          let last: Buffer | null = null;
          let beforeLast: Buffer | null = null;
          response.on('data', (chunk: Buffer) => {
            if (keepBody) chunks.push(chunk);
            beforeLast = last;
            last = chunk;
          });
          response.on('end', () => {
            const ms = performance.now() - started;
            const tailBytes = Buffer.concat([beforeLast ?? Buffer.alloc(0), last ?? Buffer.alloc(0)]);
            resolve({ status: response.statusCode ?? 0, ms, body: keepBody ? Buffer.concat(chunks) : null, tail: tailBytes.subarray(-48).toString('latin1') });
          });
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
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
}): Promise<LoadRun> {
  const { queries, concurrency, rounds } = options;
  const bodies = queries.map((q) => Buffer.from(JSON.stringify(q.body)));
  const client = new SearchClient(options.baseUrl, options.key, concurrency);
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
