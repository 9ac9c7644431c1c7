import { Worker } from 'node:worker_threads';

// The progress display of the long commands (ingest, crawl, index copy, index optimize). On a
// terminal one line is rewritten in place at least once a second; otherwise (a pipe, a log file) a
// plain line is written every ten seconds. The drawing runs in its own small thread, because the
// long phases block the main thread for many seconds at a time (SQLite's merge and the batch
// commits are synchronous calls), and a timer there would not fire. The main thread only counts,
// in shared memory, and names the phase.

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
const { fd, tty, intervalMs, names, rateIndex, counts } = workerData;
const values = new Float64Array(counts);
const started = Date.now();
let phase = '';
let phaseStarted = started;
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
const timer = setInterval(draw, intervalMs);
if (tty) draw();
parentPort.on('message', (message) => {
  if (message.phase !== undefined) {
    phase = message.phase;
    phaseStarted = Date.now();
    if (tty) draw();
  }
  if (message.stop) {
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
  const worker = new Worker(TICKER, {
    eval: true,
    workerData: {
      fd,
      tty,
      intervalMs: options.intervalMs ?? (tty ? 500 : 10_000),
      names,
      rateIndex: options.rateOf ? indexOf(options.rateOf) : -1,
      counts: values.buffer,
    },
  });
  // The display never keeps a finished command alive.
  worker.unref();
  const exited = new Promise<void>((done) => worker.once('exit', () => done()));
  let stopped = false;
  return {
    add(counter, amount = 1) {
      values[indexOf(counter)] += amount;
    },
    set(counter, value) {
      values[indexOf(counter)] = value;
    },
    phase(text) {
      if (!stopped) worker.postMessage({ phase: text });
    },
    message: writeLine,
    async stop() {
      if (stopped) return exited;
      stopped = true;
      // Held until the thread has cleared its line and ended, so no output can follow its last draw.
      worker.ref();
      worker.postMessage({ stop: true });
      await exited;
    },
  };
}
