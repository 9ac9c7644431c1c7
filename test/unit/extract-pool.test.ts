import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createExtractionPool, type ExtractionPool } from '../../services/ingest/extract/index.ts';
import { childrenRunning, commandLine, isAlive } from '../helpers/proc.ts';
import { CORPUS as CORPUS_DIR, itWithCorpus } from '../helpers/shared-corpus.ts';

const CORPUS = `${CORPUS_DIR}/`;
/** Linux: the pool counts a job's CPU time from /proc. */
const HAS_PROC = existsSync('/proc/self/stat');

const page = (title: string) =>
  new TextEncoder().encode(`<!doctype html><html lang="de"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>Der Text dieser Seite ist kurz, aber vollständig.</p></main></body></html>`);

let pool: ExtractionPool | null = null;
afterEach(async () => {
  await pool?.close();
  pool = null;
});

describe('extraction pool', () => {
  it('extracts in child processes, several jobs at once', async () => {
    pool = createExtractionPool({ workers: 2, timeoutMs: 20_000, maxMemoryMb: 256, maxBytes: 1024 * 1024 });
    const docs = await Promise.all(Array.from({ length: 6 }, (_, i) => pool!.extract({ bytes: page(`Seite ${i}`), url: `https://x.example/${i}` })));
    expect(docs.map((d) => d.title)).toEqual(['Seite 0', 'Seite 1', 'Seite 2', 'Seite 3', 'Seite 4', 'Seite 5']);
    expect(docs[0].documentType).toBe('html');
  });

  // The job behind it was already handed to the same process (queued there): it must not fail with it.
  it('kills a hanging job with TIMEOUT and keeps working, the job queued behind it included', async () => {
    pool = createExtractionPool({ workers: 1, timeoutMs: 3000, maxMemoryMb: 256, maxBytes: 1024 * 1024 });
    const hanging = pool.extract({ bytes: page('hängt'), url: 'https://x.example/h' }, { testOnlyHook: 'hang' });
    const queued = pool.extract({ bytes: page('Danach'), url: 'https://x.example/n' });
    await expect(hanging).rejects.toMatchObject({ code: 'TIMEOUT', message: expect.stringMatching(HAS_PROC ? /after \d+ ms of CPU time \(limit 3000 ms\)/ : /still running after/) });
    expect((await queued).title).toBe('Danach');
    expect((await pool.extract({ bytes: page('Noch eine'), url: 'https://x.example/m' })).title).toBe('Noch eine');
  });

  // The lead's 1M-record ingest on a loaded machine lost 64 good records (2 workers × 32 in flight) as
  // TIMEOUT: this process was blocked longer than the limit, and when it went on, the expired timer
  // ran before the finished job's answer was read from the pipe.
  it('does not kill a finished job as TIMEOUT while this process was blocked past the limit', async () => {
    pool = createExtractionPool({ workers: 1, timeoutMs: 300, hangLimitMs: 1200, maxMemoryMb: 256, maxBytes: 1024 * 1024 });
    expect((await pool.extract({ bytes: page('Warm'), url: 'https://x.example/w' })).title).toBe('Warm');
    const job = pool.extract({ bytes: page('Während der Pause'), url: 'https://x.example/p' });
    // Blocks this thread (like a long synchronous commit) past both limits, without using a core.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2500);
    expect((await job).title).toBe('Während der Pause');
  });

  it.skipIf(!HAS_PROC)('does not kill a job whose process waits for a core (stopped) past the limit; counts its CPU time', async () => {
    pool = createExtractionPool({ workers: 1, timeoutMs: 300, hangLimitMs: 60_000, maxMemoryMb: 256, maxBytes: 1024 * 1024 });
    expect((await pool.extract({ bytes: page('Warm'), url: 'https://x.example/w' })).title).toBe('Warm');
    const [pid] = extractionChildren();
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGSTOP');
    try {
      const job = pool.extract({ bytes: page('Angehalten'), url: 'https://x.example/s' });
      const outcome = job.then(
        (doc) => doc.title,
        (error: Error & { code: string }) => `${error.code} ${error.message}`,
      );
      // Ten times the limit in wall time, with no CPU time for the process.
      await new Promise((resume) => setTimeout(resume, 3000));
      process.kill(pid, 'SIGCONT');
      expect(await outcome).toBe('Angehalten');
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  });

  it('kills a job that waits without using CPU after the wall-clock guard: TIMEOUT, and keeps working', async () => {
    pool = createExtractionPool({ workers: 1, timeoutMs: 300, hangLimitMs: 2000, maxMemoryMb: 256, maxBytes: 1024 * 1024 });
    await expect(pool.extract({ bytes: page('blockiert'), url: 'https://x.example/b' }, { testOnlyHook: 'block' })).rejects.toMatchObject({
      code: 'TIMEOUT',
      message: expect.stringMatching(HAS_PROC ? /no answer after \d+ ms \(wall-clock limit 2000 ms; \d+ ms of CPU time\)/ : /still running after/),
    });
    expect((await pool.extract({ bytes: page('Danach'), url: 'https://x.example/d' })).title).toBe('Danach');
  });

  it('reports heap exhaustion as OUT_OF_MEMORY and respawns the worker', async () => {
    pool = createExtractionPool({ workers: 1, timeoutMs: 30_000, maxMemoryMb: 64, maxBytes: 1024 * 1024 });
    await expect(pool.extract({ bytes: page('bläht'), url: 'https://x.example/b' }, { testOnlyHook: 'exhaust-memory' })).rejects.toMatchObject({ code: 'OUT_OF_MEMORY' });
    expect((await pool.extract({ bytes: page('Wieder da'), url: 'https://x.example/w' })).title).toBe('Wieder da');
  });

  // In a worker thread with resourceLimits these two aborted the whole process ("FATAL ERROR: Reached
  // heap limit" / "CALL_AND_RETRY_LAST Allocation failed", Node 24.21); in a child process only it dies.
  it('reports a growing array and a growing Map as OUT_OF_MEMORY, and the caller lives on', async () => {
    pool = createExtractionPool({ workers: 1, timeoutMs: 30_000, maxMemoryMb: 64, maxBytes: 1024 * 1024 });
    for (const hook of ['grow-one-array', 'grow-map'] as const) {
      await expect(pool.extract({ bytes: page(hook), url: `https://x.example/${hook}` }, { testOnlyHook: hook })).rejects.toMatchObject({
        code: 'OUT_OF_MEMORY',
        message: expect.stringMatching(/heap limit 64 MB \(FATAL ERROR: .*heap out of memory\)/),
      });
    }
    expect((await pool.extract({ bytes: page('Überlebt'), url: 'https://x.example/u' })).title).toBe('Überlebt');
  });

  it('kills a process whose memory outside the heap passes the RSS limit: OUT_OF_MEMORY', async () => {
    // The hook holds its Buffers until killed: without the RSS watch the job would end as TIMEOUT.
    pool = createExtractionPool({ workers: 1, timeoutMs: 60_000, maxMemoryMb: 64, maxRssMb: 400, maxBytes: 1024 * 1024 });
    await expect(pool.extract({ bytes: page('extern'), url: 'https://x.example/x' }, { testOnlyHook: 'exhaust-external-memory' })).rejects.toMatchObject({
      code: 'OUT_OF_MEMORY',
      message: expect.stringMatching(/resident memory \d+ MB over the limit of 400 MB/),
    });
    expect((await pool.extract({ bytes: page('Danach'), url: 'https://x.example/d' })).title).toBe('Danach');
  });

  it('confines a native crash (abort, SIGSEGV) to its process: WORKER_FAILED, the job beside it finishes', async () => {
    pool = createExtractionPool({ workers: 2, timeoutMs: 30_000, maxMemoryMb: 256, maxBytes: 1024 * 1024 });
    const results = await Promise.allSettled([
      pool.extract({ bytes: page('abort'), url: 'https://x.example/a' }, { testOnlyHook: 'abort' }),
      pool.extract({ bytes: page('Nebenan'), url: 'https://x.example/n' }),
      pool.extract({ bytes: page('segfault'), url: 'https://x.example/s' }, { testOnlyHook: 'segfault' }),
      pool.extract({ bytes: page('Weiter'), url: 'https://x.example/w' }),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value.title : `${(r.reason as Error & { code: string }).code} ${(r.reason as Error).message}`))).toEqual([
      expect.stringMatching(/^WORKER_FAILED .*ended by SIGABRT/),
      'Nebenan',
      expect.stringMatching(/^WORKER_FAILED .*ended by SIGSEGV/),
      'Weiter',
    ]);
  });

  it('reports a worker that exits as WORKER_FAILED and respawns it', async () => {
    pool = createExtractionPool({ workers: 1, timeoutMs: 20_000, maxMemoryMb: 256, maxBytes: 1024 * 1024 });
    await expect(pool.extract({ bytes: page('weg'), url: 'https://x.example/e' }, { testOnlyHook: 'exit' })).rejects.toMatchObject({ code: 'WORKER_FAILED' });
    expect((await pool.extract({ bytes: page('Zurück'), url: 'https://x.example/z' })).title).toBe('Zurück');
  });

  it('refuses files over maxBytes before they reach a worker, and empty files', async () => {
    pool = createExtractionPool({ workers: 1, timeoutMs: 20_000, maxMemoryMb: 256, maxBytes: 1000 });
    await expect(pool.extract({ bytes: new Uint8Array(1001), url: 'https://x.example/big' })).rejects.toMatchObject({ code: 'TOO_LARGE' });
    await expect(pool.extract({ bytes: new Uint8Array(0), url: 'https://x.example/empty' })).rejects.toMatchObject({ code: 'EMPTY_FILE' });
  });

  it('passes extraction errors through with their codes and leaves the caller bytes intact', async () => {
    pool = createExtractionPool({ workers: 1, timeoutMs: 20_000, maxMemoryMb: 256, maxBytes: 1024 * 1024 });
    const junk = new Uint8Array(4096).map((_, i) => (i * 7919) % 256);
    await expect(pool.extract({ bytes: junk, url: 'https://x.example/j.html', fileName: 'j.html' })).rejects.toMatchObject({ code: 'UNSUPPORTED_TYPE' });
    expect(junk.length).toBe(4096);
  });

  itWithCorpus('survives every broken corpus file', async () => {
    pool = createExtractionPool({ workers: 2, timeoutMs: 20_000, maxMemoryMb: 256, maxBytes: 50 * 1024 * 1024 });
    const files = ['corrupt.docx', 'empty.pdf', 'encrypted-ownerpw-only.pdf', 'encrypted-userpw.pdf', 'junk.html', 'truncated.pdf', 'zipbomb.docx'];
    const results = await Promise.allSettled(files.map((f) => pool!.extract({ bytes: readFileSync(`${CORPUS}broken/${f}`), url: `https://x.example/${f}`, fileName: f })));
    expect(results.map((r) => (r.status === 'rejected' ? (r.reason as { code: string }).code : 'OK'))).toEqual([
      'CORRUPT_FILE', 'EMPTY_FILE', 'ENCRYPTED', 'ENCRYPTED', 'UNSUPPORTED_TYPE', 'CORRUPT_FILE', 'DECOMPRESSION_LIMIT',
    ]);
    const pdf = await pool.extract({ bytes: readFileSync(`${CORPUS}pdf/gesetze/stabg.pdf`), url: 'https://x.example/stabg.pdf' });
    expect(pdf.title).toBe('Gesetz zur Förderung der Stabilität und des Wachstums der Wirtschaft');
  });

  it('rejects queued jobs on close and new jobs afterwards', async () => {
    const p = createExtractionPool({ workers: 1, timeoutMs: 20_000, maxMemoryMb: 256, maxBytes: 1024 * 1024 });
    const first = p.extract({ bytes: page('Erste'), url: 'https://x.example/1' });
    const second = p.extract({ bytes: page('Zweite'), url: 'https://x.example/2' }).then(
      () => 'extracted',
      (error: { code: string }) => error.code,
    );
    const closed = p.close();
    expect((await first).title).toBe('Erste');
    expect(await second).toBe('POOL_CLOSED');
    await closed;
    await expect(p.extract({ bytes: page('Dritte'), url: 'https://x.example/3' })).rejects.toMatchObject({ code: 'POOL_CLOSED' });
  });
});

// ROLES (pool.ts): with two processes, a file is extracted in one and prepared for the index in the
// other. What comes back must be what one process doing both gives, and what this process computes.
describe('extraction pool with an extracting and a preparing process', () => {
  const pages = [
    ['Schulwegpläne', 'Die Schulwegpläne der Bundestagswahl und die Verwaltungsgerichte.'],
    ['Häuserzeilen', 'Städtebau, Bücherregale und Arbeitsämter: Oberlandesgerichtsentscheidungen.'],
    ['Kurz', 'Ein Satz.'],
    ['Wohnungsbaugesellschaft', 'Entschädigungsaufwendungen der Wohnungsbaugesellschaften im Jahresende.'],
    ['Müller & Söhne', 'Mauszeiger, Kursanmeldung, Glasscheibe; Benutzerkonten und Hauptthemen.'],
    ['Leer', ''],
  ].map(([title, text], i) => ({
    url: `https://x.example/r/${i}`,
    bytes: new TextEncoder().encode(`<!doctype html><html lang="de"><head><title>${title}</title><link rel="canonical" href="https://x.example/c/${i}"></head><body><main><h1>${title}</h1><p>${text}</p><p>${text} ${title}</p></main></body></html>`),
  }));

  it('gives the same documents and preparations as one process doing both, and as this process', async () => {
    const { extractDocument } = await import('../../services/ingest/extract/extract-document.ts');
    const { prepareForIndex } = await import('../../services/ingest/prepare.ts');
    const here = await Promise.all(
      pages.map(async (p) => {
        const doc = await extractDocument({ bytes: p.bytes, url: p.url }, { maxBytes: 1024 * 1024 });
        doc.prepared = prepareForIndex(doc, p.url);
        return doc;
      }),
    );
    const results: unknown[] = [];
    for (const roles of [true, false]) {
      pool = createExtractionPool({ workers: 2, roles, timeoutMs: 20_000, maxMemoryMb: 256, maxBytes: 1024 * 1024 });
      // Several rounds at once: preparations and extractions wait together in the queue.
      const rounds = await Promise.all([0, 1, 2].map(() => Promise.all(pages.map((p) => pool!.extract({ bytes: p.bytes, url: p.url })))));
      for (const round of rounds) results.push(round);
      await pool.close();
      pool = null;
    }
    expect(here[0].prepared?.body.base).toContain('wahl');
    for (const result of results) expect(JSON.parse(JSON.stringify(result))).toEqual(JSON.parse(JSON.stringify(here)));
  });

  it('fails only the file whose preparation hangs (TIMEOUT); the files prepared beside it are stored', async () => {
    pool = createExtractionPool({ workers: 2, timeoutMs: 3000, maxMemoryMb: 256, maxBytes: 1024 * 1024 });
    const outcomes = await Promise.all(
      pages.map((p, i) =>
        pool!.extract(p, i === 1 ? { testOnlyHook: 'hang-in-preparation' } : {}).then(
          (doc) => doc.prepared?.title.exact ?? 'not prepared',
          (error: { code: string }) => error.code,
        ),
      ),
    );
    expect(outcomes).toEqual(['schulwegplaene', 'TIMEOUT', 'kurz', 'wohnungsbaugesellschaft', 'mueller soehne', 'leer']);
    expect((await pool.extract(pages[0])).prepared?.body.base).toContain('wahl');
  });

  it('finishes a file begun before close(): extracted in one process, prepared in the other', async () => {
    const p = createExtractionPool({ workers: 2, timeoutMs: 20_000, maxMemoryMb: 256, maxBytes: 1024 * 1024 });
    const [first, second] = pages.slice(0, 2).map((page) => p.extract(page));
    const third = p.extract(pages[2]).then(
      () => 'extracted',
      (error: { code: string }) => error.code,
    );
    const closed = p.close();
    expect((await first).prepared?.body.base).toContain('wahl');
    expect((await second).prepared?.title.exact).toBe('haeuserzeilen');
    expect(await third).toBe('POOL_CLOSED');
    await closed;
  });
});

// Each extraction process has a watchdog shell that ends it once the pool's process is gone (its
// stdin pipe closes: test/e2e/extract-crash-ingest.test.ts kills the command). The shells must go
// with their processes, whichever way those end, and never end a process of a living pool.
describe.skipIf(!HAS_PROC || !existsSync('/bin/sh'))('extraction pool watchdogs', () => {
  it('are one shell per process, and end with it: after a kill for TIMEOUT, and at close', async () => {
    const p = createExtractionPool({ workers: 2, timeoutMs: 1500, maxMemoryMb: 256, maxBytes: 1024 * 1024 });
    pool = p;
    await Promise.all([1, 2, 3].map((i) => p.extract({ bytes: page(`Seite ${i}`), url: `https://x.example/${i}` })));
    const processes = extractionChildren();
    expect(processes).toHaveLength(2);
    const watchdogOf = new Map(processes.map((pid) => [pid, shellChildrenOf(pid)]));
    expect([...watchdogOf.values()].map((shells) => shells.length)).toEqual([1, 1]);
    await expect(p.extract({ bytes: page('hängt'), url: 'https://x.example/h' }, { testOnlyHook: 'hang' })).rejects.toMatchObject({ code: 'TIMEOUT' });
    const [killed, ...others] = [...processes].sort((a, b) => Number(extractionChildren().includes(a)) - Number(extractionChildren().includes(b)));
    expect(extractionChildren()).not.toContain(killed);
    expect(await goneWithin(watchdogOf.get(killed)!, 5000)).toBe(true);
    // The other process and its shell live on, and the pool still works (no process ended by a stray shell).
    expect(others.flatMap((pid) => watchdogOf.get(pid)!).filter(isAlive)).toHaveLength(1);
    expect((await p.extract({ bytes: page('Danach'), url: 'https://x.example/n' })).title).toBe('Danach');
    const after = extractionChildren().flatMap(shellChildrenOf);
    expect(after).toHaveLength(2);
    await p.close();
    pool = null;
    expect(await goneWithin(after, 5000)).toBe(true);
  });
});

// V8's efficiency mode is for runs over files only (pool.ts EFFICIENCY_MODE): records ran slower in it.
describe.skipIf(!HAS_PROC)('extraction pool efficiency mode', () => {
  it.each([true, false])('is in the processes\' command line only when asked for (%s), and they extract', async (efficiencyMode) => {
    const p = createExtractionPool({ workers: 2, timeoutMs: 10_000, maxMemoryMb: 256, maxBytes: 1024 * 1024, efficiencyMode });
    pool = p;
    expect((await p.extract({ bytes: page('Sparsam'), url: 'https://x.example/s' })).title).toBe('Sparsam');
    const processes = extractionChildren();
    expect(processes).toHaveLength(2);
    for (const pid of processes) expect(commandLine(pid).includes('--efficiency-mode')).toBe(efficiencyMode);
  });
});

/** Polls (bounded) until none of the processes is alive. */
async function goneWithin(pids: number[], ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 50) {
    if (!pids.some(isAlive)) return true;
    await new Promise((resume) => setTimeout(resume, 50));
  }
  return !pids.some(isAlive);
}

/** The shells a process started (its watchdog). */
const shellChildrenOf = (pid: number): number[] => childrenRunning(pid, /^\/bin\/sh/);

/** The extraction processes this test process started (Linux: /proc). */
const extractionChildren = (): number[] => childrenRunning(process.pid, /extract[/\\]worker\.[jt]s/);
