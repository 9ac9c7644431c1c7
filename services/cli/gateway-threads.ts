import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';
import { answerBudgetCalls } from '../access/budgets-port.ts';
import type { Budgets } from '../access/budgets.ts';
import { collectStagesBeforeWriting, mergeStages, type StageTotals } from '../core/stage-timings.ts';
import { workerExecArgv } from '../core/worker-exec-argv.ts';
import type { Config } from './config.ts';
import type { GatewayThreadData } from './gateway-thread.ts';

// The gateway served by N threads (FUNDUS_GATEWAY_THREADS), each a whole gateway — HTTP, access
// checks, search on its own read-only index — listening on the same address with SO_REUSEPORT
// (Node 24's `listen({ reusePort })`, Linux): the kernel hands each new connection to one of them.
// No request crosses a thread, unlike a search on the read pool (two messages and two thread
// wake-ups per search: README "Search speed"). What must be one per process stays on the main
// thread: the budgets (budgets-port.ts), the stage totals, the log stream, draining and closing.

export type ThreadMessage =
  | { kind: 'listening'; url: string }
  | { kind: 'failed'; message: string }
  | { kind: 'log'; text: string }
  | { kind: 'stages'; id: number; stages: StageTotals }
  | { kind: 'draining' }
  | { kind: 'closed' };
export type MainMessage = { kind: 'drain' } | { kind: 'close' } | { kind: 'stages'; id: number };

export interface GatewayThreads {
  url: string;
  /** Readiness off (503 on /readyz) and `Connection: close` on every answer, on every thread; resolves when every thread has turned. */
  drain(): Promise<void>;
  /** Every thread stops accepting, finishes its requests and closes its stores. */
  close(): Promise<void>;
}

export interface GatewayThreadsOptions {
  config: Config;
  count: number;
  budgets: Budgets;
  logStream: NodeJS.WritableStream;
  /** Told when a thread stops on its own after start-up (the others go on serving the port). */
  onThreadLost?(error: Error | null): void;
}

/** SO_REUSEPORT is Linux's (and some BSDs'); elsewhere the gateway stays on the main thread. */
export const REUSE_PORT_SUPPORTED = process.platform === 'linux';

/**
 * Checks that the address is free by binding it alone (without SO_REUSEPORT a port held by any
 * other server, even another Fundus sharing its port, is refused) and, for port 0, picks the port.
 */
async function claimPort(host: string, port: number): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => resolve());
  });
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port to serve on');
  return address.port;
}

/** gateway-thread beside this module, compiled (.js) or from source (.ts). */
function threadModuleUrl(): URL {
  const own = import.meta.url;
  for (const extension of own.endsWith('.ts') ? ['.ts', '.js'] : ['.js', '.ts']) {
    const url = new URL(`./gateway-thread${extension}`, own);
    if (existsSync(fileURLToPath(url))) return url;
  }
  throw new Error(`gateway-thread not found next to ${own}`);
}

export async function startGatewayThreads(options: GatewayThreadsOptions): Promise<GatewayThreads> {
  const { config, budgets, logStream } = options;
  const port = await claimPort(config.gateway.host, config.gateway.port);
  const url = threadModuleUrl();
  const execArgv = workerExecArgv(); // without V8's options, which a worker refuses
  const threads: { worker: Worker; exited: Promise<void> }[] = [];
  const stageWaits = new Map<number, { left: number; done(): void }>();
  let nextStageId = 1;
  const listening: Promise<string>[] = [];
  // Open connections per thread, shared by all of them (connection-balance.ts).
  const connections = new Int32Array(new SharedArrayBuffer(4 * options.count));
  let drainWaits: (() => void)[] = [];

  for (let i = 0; i < options.count; i++) {
    const channel = new MessageChannel();
    answerBudgetCalls(channel.port1, budgets);
    channel.port1.unref();
    const data: GatewayThreadData = { config, port, first: i === 0, budgetsPort: channel.port2, connections, slot: i };
    const worker = new Worker(url, { workerData: data, transferList: [channel.port2], execArgv, name: 'gateway' }); // the threads' name in /proc (the benchmark adds their CPU up by it)
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    listening.push(
      new Promise<string>((resolve, reject) => {
        worker.on('message', (message: ThreadMessage) => {
          if (message.kind === 'listening') resolve(message.url);
          else if (message.kind === 'failed') reject(new Error(message.message));
          else if (message.kind === 'log') logStream.write(message.text);
          else if (message.kind === 'draining') drainWaits.shift()?.();
          // Everything of the thread is closed and its last lines are written: nothing left to wait for.
          else if (message.kind === 'closed') void worker.terminate();
          else if (message.kind === 'stages') {
            mergeStages(message.stages);
            const wait = stageWaits.get(message.id);
            if (wait && --wait.left === 0) wait.done();
          }
        });
        worker.once('error', reject);
        void exited.then(() => reject(new Error('a serving thread stopped during start-up')));
      }),
    );
    threads.push({ worker, exited });
  }
  let closingAll = false;
  for (const { worker, exited } of threads) {
    let failure: Error | null = null;
    worker.on('error', (error) => (failure = error));
    void exited.then(() => {
      if (!closingAll) options.onThreadLost?.(failure);
    });
  }

  const stopAll = async () => {
    closingAll = true;
    for (const { worker } of threads) worker.postMessage({ kind: 'close' } satisfies MainMessage);
    await Promise.all(threads.map(({ exited }) => exited));
  };
  let addresses: string[];
  try {
    addresses = await Promise.all(listening);
  } catch (error) {
    closingAll = true;
    await Promise.all(threads.map(({ worker }) => worker.terminate()));
    throw error;
  }

  // FUNDUS_STAGE_TIMINGS (benchmarks): the threads' totals join the process's before it writes them.
  const stopCollecting = collectStagesBeforeWriting(
    () =>
      new Promise<void>((resolve) => {
        const id = nextStageId++;
        const done = () => {
          stageWaits.delete(id);
          resolve();
        };
        stageWaits.set(id, { left: threads.length, done });
        for (const { worker } of threads) worker.postMessage({ kind: 'stages', id } satisfies MainMessage);
        setTimeout(done, 2000).unref(); // a thread that does not answer delays the file, never stops it
      }),
  );

  let closing: Promise<void> | null = null;
  return {
    url: addresses[0],
    async drain() {
      const turned = threads.map(() => new Promise<void>((resolve) => drainWaits.push(resolve)));
      for (const { worker } of threads) worker.postMessage({ kind: 'drain' } satisfies MainMessage);
      // A thread that does not answer (stuck) must not hold the stop back: at most 2 s.
      await Promise.race([Promise.all(turned), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
      drainWaits = [];
    },
    close() {
      stopCollecting();
      return (closing ??= stopAll());
    },
  };
}
