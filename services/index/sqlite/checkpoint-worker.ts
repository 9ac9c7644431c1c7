// Worker thread that copies the write-ahead log of one index file into the file (a PASSIVE
// checkpoint) on a connection of its own, while the writer's thread goes on (sqlite-index.ts
// `optimize`). A failure only leaves the copy to the writer's close, which checkpoints as before.
// Imports use .ts extensions so this file runs from source and compiled.
import { DatabaseSync } from 'node:sqlite';
import { workerData } from 'node:worker_threads';

const db = new DatabaseSync(workerData as string);
try {
  db.exec('PRAGMA busy_timeout = 1000');
  db.prepare('PRAGMA wal_checkpoint(PASSIVE)').get();
} finally {
  db.close(); // not the file's last connection (the writer's is open): no checkpoint of its own here
}
