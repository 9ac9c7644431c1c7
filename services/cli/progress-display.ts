import { Worker } from 'node:worker_threads';

// The progress display of the long commands (ingest, crawl, index copy, index optimize). On a
// terminal one line is rewritten in place at least once a second; otherwise (a pipe, a log file) a
// plain line is written every ten seconds. The drawing runs in its own small thread, because the
// long phases block the main thread for many seconds at a time (SQLite's merge and the batch
// commits are synchronous calls), and a timer there would not fire. The main thread only counts,
// in shared memory, and names the phase. Without a terminal the thread starts half an interval
// after the display (see createProgressDisplay).

export interface ProgressDisplayOptions {
  /** Names of the counters, in display order ("read", "stored", ...). */
  counters: readonly string[];
  /** The counter whose rate per second is shown, if any. */
  rateOf?: string;
  /** File descriptor written to (standard error by default) and whether it is a terminal. */
  fd?: number;
  tty?: boolean;
  /** Milliseconds between two draws: 500 on a terminal, 10 000 otherwise. */
  intervalMs?: number;
  /** Whether anything is drawn at all (`--quiet` keeps the plain lines away from logs). */
  enabled?: boolean;
}

export interface ProgressDisplay {
  add(counter: string, amount?: number): void;
  set(counter: string, value: number): void;
  /** What the command is doing now ("optimizing the index"); shown with the time spent in it. */
  phase(text: string): void;
  /** A line of its own (a skipped file): on a terminal it clears the progress line first. */
  message(line: string): void;
  /** Ends the display: the progress line is cleared, so the next output starts on a clean line. */
  stop(): Promise<void>;
}

/** Runs in the drawing thread, as plain JavaScript (eval), so it needs no file of its own in dist/. */
const TICKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const { fd, tty, intervalMs, names, rateIndex, counts, started } = workerData;
const values = new Float64Array(counts);
let phase = workerData.phase;
let phaseStarted = workerData.phaseStarted;
let drawn = false;
const write = (text) => { try { writeSync(fd, text); } catch {} };
const seconds = (ms) => (ms / 1000).toFixed(ms < 10000 ? 1 : 0) + ' s';
function frame() {
  const now = Date.now();
  const parts = names.map((name, i) => values[i] + ' ' + name);
  if (rateIndex >= 0) parts.push(Math.round(values[rateIndex] / Math.max((now - started) / 1000, 0.001)) + '/s');
  parts.push(seconds(now - started));
  const line = parts.join(' · ');
  return phase ? line + ' · ' + phase + ' (' + seconds(now - phaseStarted) + ')' : line;
}
function draw() {
  if (tty) write('\\r\\x1b[K  ' + frame());
  else write('progress: ' + frame() + '\\n');
  drawn = true;
}
// Lines at whole intervals from the display's start (the thread may start later: see below).
let timer = null;
const first = setTimeout(() => { draw(); timer = setInterval(draw, intervalMs); }, Math.max(0, started + intervalMs - Date.now()));
if (tty) draw();
parentPort.on('message', (message) => {
  if (message.phase !== undefined) {
    phase = message.phase;
    phaseStarted = Date.now();
    if (tty) draw();
  }
  if (message.stop) {
    clearTimeout(first);
    clearInterval(timer);
    if (tty && drawn) write('\\r\\x1b[K');
    parentPort.close();
  }
});
`;

export function createProgressDisplay(options: ProgressDisplayOptions): ProgressDisplay {
  const fd = options.fd ?? 2;
  const tty = options.tty ?? Boolean(process.stderr.isTTY);
  const names = [...options.counters];
  const values = new Float64Array(new SharedArrayBuffer(8 * Math.max(1, names.length)));
  const indexOf = (counter: string) => {
    const index = names.indexOf(counter);
    if (index < 0) throw new Error(`unknown progress counter "${counter}"`);
    return index;
  };
  const writeLine = (line: string) => process.stderr.write(`${tty ? '\r\x1b[K' : ''}${line}\n`);
  if (options.enabled === false) {
    return { add() {}, set() {}, phase() {}, message: writeLine, stop: async () => {} };
  }
  const intervalMs = options.intervalMs ?? (tty ? 500 : 10_000);
  const started = Date.now();
  let phase = { text: '', at: started };
  let worker: Worker | null = null;
  let exited = Promise.resolve();
  const startThread = () => {
    const thread = new Worker(TICKER, {
      eval: true,
      workerData: { fd, tty, intervalMs, names, rateIndex: options.rateOf ? indexOf(options.rateOf) : -1, counts: values.buffer, started, phase: phase.text, phaseStarted: phase.at },
    });
    // The display never keeps a finished command alive.
    thread.unref();
    exited = new Promise<void>((done) => thread.once('exit', () => done()));
    worker = thread;
  };
  // On a terminal the line is drawn at once. Otherwise the first line is due after a whole interval,
  // and the thread starts half an interval before it: a command that ends sooner never pays for the
  // thread (about 50 ms of CPU, at the start of a run, when the extraction processes start too). A
  // main thread blocked at that moment starts it late, and only the first line is late.
  const lazyStart = tty ? null : setTimeout(startThread, intervalMs / 2).unref();
  if (tty) startThread();
  let stopped = false;
  return {
    add(counter, amount = 1) {
      values[indexOf(counter)] += amount;
    },
    set(counter, value) {
      values[indexOf(counter)] = value;
    },
    phase(text) {
      if (stopped) return;
      if (worker) worker.postMessage({ phase: text });
      else phase = { text, at: Date.now() };
    },
    message: writeLine,
    async stop() {
      if (stopped) return exited;
      stopped = true;
      if (lazyStart) clearTimeout(lazyStart);
      if (!worker) return;
      // Held until the thread has cleared its line and ended, so no output can follow its last draw.
      worker.ref();
      worker.postMessage({ stop: true });
      await exited;
    },
  };
}
