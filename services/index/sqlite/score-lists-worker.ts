// Worker thread of the score-list build (score-lists.ts): writes the lists of the words that
// start in its range of leaf pages to a file of its own, on its own read-only connection, and
// sends back where each list is. Imports use .ts extensions so this file runs from source and compiled.
import { closeSync, openSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { openIndexReader } from './fts-file.ts';
import { FileWriter, writeListPostings, type ListsPartJob } from './score-lists.ts';

const { indexFile, partFile, minDocuments, range, blockData } = workerData as ListsPartJob;
const db = openIndexReader(indexFile);
const fd = openSync(partFile, 'w');
try {
  parentPort!.postMessage(writeListPostings(db, new FileWriter(fd), minDocuments, range, blockData));
} finally {
  closeSync(fd);
  db.close();
}
