// Worker thread of the head-term build (head-terms.ts): ranks its share of the words on its own
// read-only connection and sends each list back; the main thread writes them.
// Imports use .ts extensions so this file runs from source (Node 24 strips types) and compiled.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import { rankHeadTerm } from './head-terms.ts';

const { file, expressions, minMatches } = workerData as { file: string; expressions: string[]; minMatches: number };
const db = new DatabaseSync(file, { readOnly: true });
for (const expression of expressions) parentPort!.postMessage(rankHeadTerm(db, expression, minMatches));
db.close();
