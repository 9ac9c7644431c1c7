// Worker thread of the SQLite read pool: its own read-only connection, one request at a time.
// Imports use .ts extensions so this file runs from source (Node 24 strips types) and compiled.
import { parentPort, workerData } from 'node:worker_threads';
import { analyzeWord } from '../../core/analysis/index.ts';
import { STAGE_TIMINGS_ON, stageClock, takeStages } from '../../core/stage-timings.ts';
import { finishHits } from './hit-fields.ts';
import { SqliteIndex } from './sqlite-index.ts';
import type { ReadRequest, ReadReply } from './read-pool.ts';

const port = parentPort;
if (!port) throw new Error('read-worker.ts must run as a worker thread');
const { file, memoryShare } = workerData as { file: string; memoryShare: number };
const index = new SqliteIndex({ file, readOnly: true, memoryShare });
analyzeWord('Bundestagswahl'); // loads the compound lexicon now, not during the first search

async function answer(request: ReadRequest): Promise<unknown> {
  switch (request.method) {
    case 'search': {
      const clock = stageClock(); // null unless FUNDUS_STAGE_TIMINGS (benchmark only)
      const result = index.searchSync(request.query);
      clock?.lap('worker.search');
      finishHits(result, request.query);
      clock?.lap('worker.snippets');
      return result;
    }
    case 'getDocument':
      return index.getDocument(request.documentId);
    case 'listSources':
      return index.listSources();
    case 'stats':
      return index.stats();
    case 'ping':
      return index.ping();
  }
}

port.on('message', async (request: ReadRequest) => {
  // The whole handler, the reply's copy included (it lands in the next reply's stages).
  const clock = stageClock();
  try {
    const value = await answer(request);
    const stages = STAGE_TIMINGS_ON ? takeStages() : undefined;
    port.postMessage({ requestId: request.requestId, ok: true, value, ...(stages ? { stages } : {}) } satisfies ReadReply);
    clock?.lap('worker.message');
  } catch (error) {
    port.postMessage({ requestId: request.requestId, ok: false, message: error instanceof Error ? error.message : String(error) } satisfies ReadReply);
  }
});
