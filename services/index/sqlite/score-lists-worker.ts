// Worker thread of the score-list build (score-lists.ts), on its own read-only connection: either
// writes the lists of the words that start in its range of leaf pages into the space it takes in
// the lists' file and sends back where each list is, or reads the rows' sizes and the documents' facets and sends back their arrays.
// Imports use .ts extensions so this file runs from source and compiled.
import { closeSync, openSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { openIndexReader } from './fts-file.ts';
import { FileWriter, generationOf, highestSeq, readDocumentFacets, readTokenCounts, writeListPostings, type FacetsJob, type ListsPartJob } from './score-lists.ts';

const job = workerData as ListsPartJob | FacetsJob;
const db = openIndexReader(job.indexFile); // the rows' sizes are in the FTS5 file
try {
  if (job.kind === 'lists') {
    const fd = openSync(job.file, 'r+');
    try {
      const out = new FileWriter(fd);
      const part = writeListPostings(db, out, job.minDocuments, job.range, job.blockData, job.space);
      out.flush();
      parentPort!.postMessage(part);
    } finally {
      closeSync(fd);
    }
  } else {
    // One read transaction: the generation and highest row id tag the snapshot the arrays come from.
    db.exec('BEGIN');
    const generation = generationOf(db);
    const maxSeq = highestSeq(db);
    const tokens = readTokenCounts(db, maxSeq);
    parentPort!.postMessage({ kind: 'sizes', generation, maxSeq, tokens }, [tokens.buffer as ArrayBuffer]);
    const facets = readDocumentFacets(db, generation, maxSeq);
    db.exec('COMMIT');
    const arrays = [facets.type, facets.host, facets.topic, facets.news, facets.age];
    parentPort!.postMessage({ kind: 'facets', ...facets }, arrays.map((array) => array.buffer as ArrayBuffer)); // moved, not copied
  }
} finally {
  db.close();
}
