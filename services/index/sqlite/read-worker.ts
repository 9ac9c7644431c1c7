// Worker thread of the SQLite read pool: its own read-only connection, one request at a time.
// Imports use .ts extensions so this file runs from source (Node 24 strips types) and compiled.
import { parentPort, workerData } from 'node:worker_threads';
import { analyzeWord } from '../../core/analysis/index.ts';
import { makeSnippet } from '../../core/snippet.ts';
import { STAGE_TIMINGS_ON, stageClock, takeStages } from '../../core/stage-timings.ts';
import { SqliteIndex } from './sqlite-index.ts';
import type { ReadRequest, ReadReply } from './read-pool.ts';
import type { StoredDocument } from '../../core/document.ts';

/** Texts of hits cross the thread boundary only this far; the snippet is made here from the whole text. */
const HIT_TEXT_LIMIT = 5000;

const port = parentPort;
if (!port) throw new Error('read-worker.ts must run as a worker thread');
const index = new SqliteIndex({ file: (workerData as { file: string }).file, readOnly: true });
analyzeWord('Bundestagswahl'); // loads the compound lexicon now, not during the first search

/**
 * What a search hit shows of a record (core's toSearchHit), the rest left empty: copying a reply to
 * the HTTP thread costs by its fields, and the text, content and hashes are most of them.
 */
function hitFieldsOf(doc: StoredDocument): StoredDocument {
  return {
    id: doc.id,
    url: doc.url,
    canonicalUrl: '',
    host: '',
    sourceDomain: doc.sourceDomain,
    sourceId: doc.sourceId,
    title: doc.title,
    text: '',
    contentType: doc.contentType,
    documentType: doc.documentType,
    language: doc.language,
    publishedAt: doc.publishedAt,
    modifiedAt: doc.modifiedAt,
    contentDate: doc.contentDate,
    dates: doc.dates,
    fetchedAt: doc.fetchedAt,
    contentHash: '',
    fingerprint: null,
    topic: doc.topic,
    isNews: doc.isNews,
    content: {},
    duplicateOf: null,
    changedAt: '',
  };
}

async function answer(request: ReadRequest): Promise<unknown> {
  switch (request.method) {
    case 'search': {
      const clock = stageClock(); // null unless FUNDUS_STAGE_TIMINGS (benchmark only)
      const result = index.searchSync(request.query);
      clock?.lap('worker.search');
      for (const hit of result.hits) {
        hit.snippet = makeSnippet(hit.document.text || hit.document.title, request.query.terms);
        if (request.query.hitFieldsOnly) hit.document = hitFieldsOf(hit.document);
        else if (hit.document.text.length > HIT_TEXT_LIMIT) hit.document.text = hit.document.text.slice(0, HIT_TEXT_LIMIT);
      }
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
