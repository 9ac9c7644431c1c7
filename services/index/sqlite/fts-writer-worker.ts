// Worker thread of the FTS5 writer (fts-writer.ts): applies each write's FTS5 changes to the FTS5
// file, in the order the writer committed them, one transaction each, and says which it applied.
// After a failure it applies nothing more (later changes must not pass an earlier one): the
// writer's thread reports it, and the next writer to open the index repairs from fts_pending.
// Imports use .ts extensions so this file runs from source and compiled.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import { applyFtsOps, FTS_WRITER_PRAGMAS, ftsStatements, type FtsOp } from './fts-file.ts';

const { ftsFile } = workerData as { ftsFile: string };
const db = new DatabaseSync(ftsFile);
db.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL');
// No memory map, a small cache: FTS5 appends its segments, and the pages a merge reads through a
// map would count in the process's memory (the OS caches them anyway).
db.exec(FTS_WRITER_PRAGMAS);
const statements = ftsStatements(db);
let failed = false;

parentPort!.on('message', (message: { generation: number; ops: FtsOp[] } | 'close') => {
  if (message === 'close') {
    db.close();
    parentPort!.close();
    return;
  }
  if (failed) return;
  try {
    applyFtsOps(db, message.ops, statements);
    parentPort!.postMessage({ applied: message.generation });
  } catch (error) {
    failed = true;
    parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
