// One serving thread of the gateway (gateway-threads.ts): its own HTTP server on the shared port
// (SO_REUSEPORT: the kernel spreads new connections over the threads), its own read-only index,
// searches answered inline. Budgets are the process's, asked of the main thread (budgets-port.ts).
// Imports use .ts extensions so this file runs from source (Node 24 strips types) and compiled.
import { parentPort, threadId, workerData, type MessagePort } from 'node:worker_threads';
import type { FastifyListenOptions } from 'fastify';
import pino from 'pino';
import { createAccess } from '../access/access-guard.ts';
import { budgetsOverPort } from '../access/budgets-port.ts';
import { analyzeWord } from '../core/analysis/index.ts';
import { takeStages } from '../core/stage-timings.ts';
import { balanceConnections } from '../gateway/connection-balance.ts';
import { addDrainHooks } from '../http/drain.ts';
import { InlineSqliteIndex } from '../index/sqlite/inline-index.ts';
import { openWhenReady } from '../index/sqlite/waiting-index.ts';
import type { Config } from './config.ts';
import { buildConfiguredGateway } from './gateway-app.ts';
import type { MainMessage, ThreadMessage } from './gateway-threads.ts';

export interface GatewayThreadData {
  config: Config;
  port: number;
  /** The first thread tells of waiting for the index; the others wait alike, silently. */
  first: boolean;
  budgetsPort: MessagePort;
  /** Open connections per thread (shared by all threads) and this thread's slot in it. */
  connections: Int32Array;
  slot: number;
}

const parent = parentPort;
if (!parent) throw new Error('gateway-thread.ts must run as a worker thread');
const send = (message: ThreadMessage) => parent.postMessage(message);

/**
 * Log lines go to the main thread, which writes them to the process's log: in batches of at
 * least 4 KiB or every half second, so that lines of several threads never interleave and a
 * request costs no message of its own.
 */
class LineBatches {
  private text = '';
  private readonly timer = setInterval(() => this.flush(), 500).unref();
  write(line: string): boolean {
    this.text += line;
    if (this.text.length >= 4096) this.flush();
    return true;
  }
  flush(): void {
    if (!this.text) return;
    send({ kind: 'log', text: this.text });
    this.text = '';
  }
  close(): void {
    clearInterval(this.timer);
    this.flush();
  }
}

async function main(data: GatewayThreadData): Promise<void> {
  const { config } = data;
  if (config.index.kind !== 'sqlite') throw new Error('serving threads need the embedded index');
  const file = config.index.file;
  const lines = new LineBatches();
  const logStream = lines as unknown as NodeJS.WritableStream;
  const log = pino({ level: config.logLevel, base: { thread: threadId } }, logStream);
  const index = openWhenReady({
    open: () => new InlineSqliteIndex({ file, readOnly: true, memoryShare: 1 / data.connections.length, openWaitMs: 0 }), // the process's cache budget shared by its threads
    onWait: (reason) => data.first && log.warn({ index: 'web' }, `index not ready, waiting: ${reason}`),
    onOpen: () => data.first && log.info({ index: 'web' }, 'index open'),
  });
  analyzeWord('Bundestagswahl'); // loads the compound lexicon now, not during the first search
  const access = await createAccess(config, log, { sharedBudgets: budgetsOverPort(data.budgetsPort) });
  let draining = false;
  // Request lines say which thread answered (still no query text, no address: app-base.ts).
  const app = await buildConfiguredGateway({ config, index, guard: access.guard, logStream, logBindings: { thread: threadId } });
  addDrainHooks(app, () => draining);
  balanceConnections(app, data.connections, data.slot);
  // Fastify hands its listen options to node's server.listen, whose `reusePort` its types do not list yet.
  const listenOptions: FastifyListenOptions = { host: config.gateway.host, port: data.port };
  const url = await app.listen({ ...listenOptions, reusePort: true } as FastifyListenOptions);

  parent!.on('message', (message: MainMessage) => {
    if (message.kind === 'drain') {
      draining = true;
      send({ kind: 'draining' });
    }
    else if (message.kind === 'stages') send({ kind: 'stages', id: message.id, stages: takeStages() });
    else if (message.kind === 'close') {
      void (async () => {
        await app.close();
        await access.close();
        await index.close();
        lines.close();
        send({ kind: 'closed' });
        parent!.close();
      })();
    }
  });
  send({ kind: 'listening', url });
}

main(workerData as GatewayThreadData).catch((error: unknown) => {
  send({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
});
