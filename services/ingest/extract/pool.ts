// A pool of extraction processes. Untrusted files run where a runaway parser can be killed (per-job
// time limit -> kill and respawn, TIMEOUT; see startTimer for how time is counted), where a heap limit ends only that process
// (--max-old-space-size -> OUT_OF_MEMORY), where memory outside the heap is watched (RSS limit ->
// OUT_OF_MEMORY) and where a native crash ends only that process (WORKER_FAILED); the ingesting
// process and the other jobs carry on (issue 3: "one bad file never takes the process down").
// Child processes, not worker threads: a worker's resourceLimits do not confine every heap failure
// (see worker.ts), and nothing confines a native crash to a thread.
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { ExtractedDocument } from '../../core/document.ts';
import { ExtractionError, isExtractionErrorCode } from './errors.ts';
import type { ExtractInput, ExtractOptions } from './extract-document.ts';
import type { TextPreparation } from '../prepare.ts';
import { TEST_ONLY_HOOKS_ENV, type TestOnlyHook, testOnlyHooksFromEnv } from './test-only-hooks.ts';
import type { PreparedOutcome, WorkerJob, WorkerReady, WorkerReply, WorkerRole } from './worker.ts';
import type { ZipLimits } from './zip-guard.ts';

export interface ExtractionPoolOptions {
  workers: number;
  /**
   * Per job, in CPU time of its process: a job that has used this much CPU without answering is
   * killed with its process (TIMEOUT). CPU, not wall clock: on a busy machine a good file must not
   * be lost because its process waited for a core, or because this process was busy.
   */
  timeoutMs: number;
  /**
   * Per job, in wall-clock time: the guard for a job that waits without using CPU (a read that never
   * returns), killed after this (TIMEOUT). Default 4 × timeoutMs; never less than timeoutMs.
   */
  hangLimitMs?: number;
  /** Old-generation heap of each extraction process (--max-old-space-size). */
  maxMemoryMb: number;
  /**
   * Resident memory of each extraction process, heap and everything outside it (Buffers, parser
   * copies); over it the process is killed: OUT_OF_MEMORY. Default 2 × maxMemoryMb + 256. Watched
   * where /proc exists (Linux).
   */
  maxRssMb?: number;
  /** Files larger than this are refused before they reach a process. */
  maxBytes: number;
  zipLimits?: ZipLimits;
  /**
   * With two processes or more, a file is extracted in one process and prepared for the index
   * (analysis, fingerprint, topic) in another: see ROLES. Default true; false: each process
   * prepares what it extracted.
   */
  roles?: boolean;
  /** V8's efficiency mode in the processes (see EFFICIENCY_MODE): for runs that extract files, not for records. Default false. */
  efficiencyMode?: boolean;
}

export interface ExtractJobOptions {
  /** Makes the extraction misbehave on purpose; for the pool's own tests only. */
  testOnlyHook?: TestOnlyHook;
}

export interface ExtractionPool {
  /** Extracts a file and prepares it for the index (analysis, fingerprint, topic). */
  extract(input: ExtractInput, job?: ExtractJobOptions): Promise<ExtractedDocument>;
  /** Prepares an already extracted document for the index, in the pool's processes; `topic: false` skips the offline topic. */
  prepare(doc: ExtractedDocument, url?: string, options?: { topic?: boolean }): Promise<ExtractedDocument>;
  close(): Promise<void>;
}

interface Pending {
  id: number;
  input: ExtractInput;
  /** Extract only: the document is then prepared by a second job (ROLES). */
  extractOnly?: boolean;
  /** A preparation of a file extracted here: only a preparing process takes it (ROLES). */
  forPreparer?: boolean;
  /** Its prepareText, made where it was extracted. */
  text?: TextPreparation;
  preExtracted?: ExtractedDocument;
  /** False: the pre-extracted document brings its own topic. */
  topic?: boolean;
  hook?: TestOnlyHook;
  resolve(doc: ExtractedDocument, text?: TextPreparation): void;
  reject(error: ExtractionError): void;
}

interface Slot {
  child: ChildProcess | null;
  /** The jobs the process is running: one file, or a run of pre-extracted documents. */
  jobs: Pending[];
  /**
   * The next jobs, already handed to the process, which starts them once it has answered the
   * running ones: it never waits for this process to read its answer and hand out more work.
   */
  queued: Pending[];
  timer: NodeJS.Timeout | null;
  /** The process has loaded and warmed up: only then does a job's time limit start to run. */
  ready: boolean;
  /** Ends a process that never gets ready (a hung start-up). */
  startup: NodeJS.Timeout | null;
  /** Why the pool killed the process, reported when it has ended. */
  killedFor: ExtractionError | null;
  /** The end of the process's output: V8's "FATAL ERROR ... heap out of memory" tells OOM from other crashes. */
  stderrTail: string;
  /** The process's CPU time (ms) when it last answered: where its next job's CPU time starts. */
  cpuMs: number | null;
  /** With roles, this process prepares rather than extracts (ROLES). */
  preparer: boolean;
}

/**
 * Pre-extracted documents handed to a process in one message: one message each kept the workers
 * waiting for the writer's thread to hand out the next (measured: idle two thirds of the time).
 */
const PREPARE_BATCH = 32;

/** A pre-extracted document given to the pool as such (a record), not one extracted in it: these go in batches. */
function isRecord(job: Pending): boolean {
  return job.preExtracted !== undefined && !job.forPreparer;
}

/**
 * Takes `queue[first]` and the next matching jobs, up to PREPARE_BATCH, out of the queue in one pass.
 * Records keep thousands of jobs queued, and a splice for each job taken moved all of them each time
 * (a CPU profile of 100k records charged it 1.25 s of the writer's thread; at 1M no difference showed
 * in the thread's CPU time).
 */
function takeBatch(queue: Pending[], first: number, matches: (job: Pending) => boolean): Pending[] {
  const jobs = [queue[first]];
  let kept = first;
  for (let i = first + 1; i < queue.length; i++) {
    if (jobs.length < PREPARE_BATCH && matches(queue[i])) jobs.push(queue[i]);
    else queue[kept++] = queue[i];
  }
  queue.length = kept;
  return jobs;
}

/**
 * ROLES. Each process keeps the analyses of the words it has met; two processes that both prepare
 * documents analyse most new words twice, and the first analysis of a word (stem, compound split)
 * is most of what preparing a document costs. So with two processes or more, a file is extracted in
 * one process and prepared for the index in another. Preparing is about two thirds of the processes'
 * work on HTML (measured on 2 cores), so a third of the processes (at least one) extract and the
 * others prepare: one and one of two, one and two of three, two and four of six. Preparing
 * processes prefer preparations and extract only when none waits; extracting ones never prepare a
 * file extracted here (that would bring the double analyses back). Pre-extracted documents
 * (`prepare`, records) go to any process, as before: there is no extraction for the others to do.
 */
function preparerCount(workers: number): number {
  return workers - Math.max(1, Math.round(workers / 3));
}

/**
 * How long a process may take to load and warm up before it counts as failed. Start-up is not
 * part of a job's time limit: on a loaded machine it took longer than a small limit, and the job
 * queued behind a killed one then timed out on a process that had not yet started.
 */
const STARTUP_LIMIT_MS = 60_000;

/** How often a running job's resident memory is read (fast growth overshoots the limit by up to this much time). */
const RSS_POLL_MS = 100;

const STDERR_TAIL_CHARS = 8192;

/**
 * A time-limit timer that fires this much later than it was due means this process itself was
 * blocked (a long synchronous commit or FTS5 merge): the answers that came in meanwhile wait in the
 * pipes, and the job gets STALL_GRACE_MS of a running event loop to deliver its answer first.
 */
const STALL_MS = 500;
const STALL_GRACE_MS = 1000;

/** The least time between two reads of a job's CPU time once its wall time has passed the limit. */
const MIN_RECHECK_MS = 100;

/** Clock ticks per second of /proc/PID/stat (USER_HZ, 100 on every Linux architecture Node runs on). */
const USER_HZ = 100;

/**
 * CPU time of a process in ms so far (utime + stime of all its threads, as getrusage counts it in
 * the process), or null where /proc cannot tell (not Linux, already reaped). Read only for a job
 * that is past its limit in wall time, so rarely.
 */
function cpuTimeMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name in parentheses (which may hold spaces): state (field 3) ... utime (14), stime (15).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / USER_HZ : null;
  } catch {
    return null;
  }
}

/** worker.ts next to this file when running from source, worker.js when compiled to dist/. */
export function resolveWorkerUrl(): URL {
  const own = import.meta.url;
  const preferred = own.endsWith('.ts') ? ['worker.ts', 'worker.js'] : ['worker.js', 'worker.ts'];
  for (const name of preferred) {
    const url = new URL(`./${name}`, own);
    if (existsSync(fileURLToPath(url))) return url;
  }
  throw new Error(`extraction worker not found next to ${own}`);
}

// Flags of the parent process that make no sense in an extraction process (and --input-type makes
// it fail to start); its own heap limit is set by the pool.
const PARENT_ONLY_FLAGS = /^(--input-type|--eval|-e|--print|-p|--test|--watch|--check|-c|--interactive|-i|--max-old-space-size|--inspect[a-z-]*)(=|$)/;

function childExecArgv(maxMemoryMb: number, efficiencyMode: boolean): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    if (PARENT_ONLY_FLAGS.test(argv[i])) {
      if (!argv[i].includes('=') && /^(--input-type|--eval|-e|--print|-p|--max-old-space-size)$/.test(argv[i])) i++;
      continue;
    }
    out.push(argv[i]);
  }
  out.push(`--max-old-space-size=${maxMemoryMb}`, `--initial-old-space-size=${initialOldSpaceMb(maxMemoryMb)}`);
  if (efficiencyMode) out.push(...EFFICIENCY_MODE);
  return out;
}

/**
 * V8's efficiency mode, for work no one waits on, with its tiering only. The pool keeps every core
 * busy, so what V8 does for latency is paid in CPU taken from the other processes. In this mode a
 * function goes to TurboFan only after 15,000 calls, so what runs once a file (with loops over the
 * whole text) stays in Maglev, whose code is made in a fraction of the time: over the corpus HTML
 * the processes made 1–8 TurboFan compilations instead of 80–90. Its garbage collection on one
 * thread stays off: it raised the peak memory of the PDF run by 60–140 MiB. Records are the other
 * way round: a run is tens of thousands of documents per process, where TurboFan's code pays for
 * itself, and at 100k records the mode made the run slower; so only runs over files use it
 * (README "Efficiency mode").
 */
const EFFICIENCY_MODE = ['--efficiency-mode', '--no-single-threaded-gc-in-background'];

/**
 * Where V8 first considers a full collection of the old generation. By default it starts small and
 * grows, so a preparing process, whose word analyses all stay (bounded by the word table), ran 4–7
 * full collections over the 1222 corpus pages while its heap grew to 25–45 MB; starting at 96 MB it
 * runs 0–1 (about 0.2 s of CPU less, README "One process analyses"). Only a threshold: the heap limit
 * and the resident-memory limit stay as they are, and memory is still returned after a collection.
 */
const INITIAL_OLD_SPACE_MB = 96;

function initialOldSpaceMb(maxMemoryMb: number): number {
  return Math.max(1, Math.min(INITIAL_OLD_SPACE_MB, Math.floor(maxMemoryMb / 2)));
}

/** Resident memory of a process in MiB, or null where /proc cannot tell (not Linux, already gone). */
async function residentMb(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}

/** Why an extraction process ended, from its exit and the end of its stderr. */
function endOf(code: number | null, signal: NodeJS.Signals | null, stderrTail: string, maxMemoryMb: number): ExtractionError {
  const fatal = /^(FATAL ERROR:.*|#\s*Fatal error.*)$/m.exec(stderrTail)?.[1]?.trim();
  if (fatal && /heap out of memory|allocation failed|invalid array length|invalid table size/i.test(fatal)) {
    return new ExtractionError('OUT_OF_MEMORY', `heap limit ${maxMemoryMb} MB (${fatal.slice(0, 200)})`);
  }
  const how = signal ? `ended by ${signal}` : `exited with code ${code}`;
  return new ExtractionError('WORKER_FAILED', fatal ? `${how} (${fatal.slice(0, 200)})` : how);
}

export function createExtractionPool(options: ExtractionPoolOptions): ExtractionPool {
  const workerPath = fileURLToPath(resolveWorkerUrl());
  const workerOptions: ExtractOptions = { maxBytes: options.maxBytes, zipLimits: options.zipLimits };
  const maxRssMb = options.maxRssMb ?? options.maxMemoryMb * 2 + 256;
  const hangLimitMs = Math.max(options.timeoutMs, options.hangLimitMs ?? options.timeoutMs * 4);
  const execArgv = childExecArgv(options.maxMemoryMb, options.efficiencyMode ?? false);
  const envHooks = testOnlyHooksFromEnv(process.env[TEST_ONLY_HOOKS_ENV]);
  if (envHooks.size) process.stderr.write(`fundus: ${TEST_ONLY_HOOKS_ENV} is set: test-only extraction hooks for ${envHooks.size} file name(s)\n`);
  const roles = (options.roles ?? true) && options.workers >= 2;
  const preparers = preparerCount(options.workers);
  const slots: Slot[] = Array.from({ length: Math.max(1, options.workers) }, (_, i) => ({
    child: null,
    jobs: [],
    queued: [],
    timer: null,
    ready: false,
    startup: null,
    killedFor: null,
    stderrTail: '',
    cpuMs: null,
    preparer: i < preparers,
  }));
  const queue: Pending[] = [];
  let nextId = 1;
  let closing = false;
  const idleWaiters: (() => void)[] = [];
  // Processes that die without a job (a broken install, a missing worker file) would respawn forever.
  let idleDeaths = 0;
  let broken: ExtractionError | null = null;

  function settle(slot: Slot): Pending[] {
    const jobs = slot.jobs;
    slot.jobs = [];
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    return jobs;
  }

  function finish(job: Pending, outcome: { ok: true; doc: ExtractedDocument; text?: TextPreparation } | { ok: false; code: string; message: string }): void {
    if (outcome.ok) job.resolve(outcome.doc, outcome.text);
    else job.reject(new ExtractionError(isExtractionErrorCode(outcome.code) ? outcome.code : 'CORRUPT_FILE', undefined, { cause: outcome.message }));
  }

  /** A pre-extracted document gets the preparation its process made (a copy: the caller's stays as it was). */
  function finishPrepared(job: Pending, outcome: PreparedOutcome): void {
    finish(job, outcome.ok ? { ok: true, doc: { ...job.preExtracted!, prepared: outcome.prepared } } : outcome);
  }

  function stopStartup(slot: Slot): void {
    if (slot.startup) clearTimeout(slot.startup);
    slot.startup = null;
  }

  /**
   * Kills the slot's process for a reason the pool knows (time limit, memory); its jobs fail with
   * that reason once it has ended, and a new process takes the slot then.
   */
  function kill(slot: Slot, reason: ExtractionError): void {
    if (!slot.child || slot.killedFor) return;
    slot.killedFor = reason;
    // Referenced until it has ended: with the job's timer gone, nothing else may keep this process
    // alive, and `fundus ingest` ended with exit code 0 and no summary before the 'close' that
    // reports the file (seen with one hanging file).
    slot.child.ref();
    slot.child.kill('SIGKILL');
  }

  /**
   * A job's time limit, from when a ready process gets it; and its memory watch.
   *
   * The rule: a bad file is killed and reported (TIMEOUT), a good one is never lost because the
   * machine is busy. A 1M-record ingest on a loaded machine lost 64 good records (2 workers × one
   * batch of 32 in flight each, all at once) to a wall-clock timer: while this process was blocked
   * in a long synchronous commit, the answers arrived in the pipes, and when it went on, Node ran the
   * expired timers before the poll phase that reads the pipes. So when the timer fires:
   * - the decision waits for setImmediate, after the poll phase: an answer already in the pipe is
   *   read first and the job is done;
   * - a timer that fired late (this process was blocked) gives the job STALL_GRACE_MS more;
   * - the limit counts the CPU time of the job's process (/proc/PID/stat since its last answer), so
   *   a process that waited for a core on a loaded machine is not killed: the timer checks again
   *   when the job could have used up its CPU time at the earliest;
   * - a wall-clock guard, hangLimitMs, kills a job that waits without CPU (a blocked read); stalls
   *   of this process delay it at most to 2 × hangLimitMs. Without /proc the wall clock is the limit.
   */
  function startTimer(slot: Slot): void {
    const job = slot.jobs[0];
    const child = slot.child!;
    const started = Date.now();
    const cpuAtStart = slot.cpuMs;
    const running = () => slot.child === child && slot.jobs[0] === job && !slot.killedFor;
    const arm = (delayMs: number) => {
      const due = Date.now() + delayMs;
      slot.timer = setTimeout(() => {
        const lateMs = Date.now() - due;
        setImmediate(() => {
          if (!running()) return;
          const wallMs = Date.now() - started;
          if (lateMs > STALL_MS && wallMs < 2 * hangLimitMs) return arm(STALL_GRACE_MS);
          const now = cpuAtStart === null || child.pid === undefined ? null : cpuTimeMs(child.pid);
          if (now === null || cpuAtStart === null) {
            kill(slot, new ExtractionError('TIMEOUT', `still running after ${wallMs} ms (limit ${options.timeoutMs} ms)`));
            return;
          }
          const cpuMs = Math.max(0, now - cpuAtStart);
          if (cpuMs >= options.timeoutMs) {
            kill(slot, new ExtractionError('TIMEOUT', `still running after ${Math.round(cpuMs)} ms of CPU time (limit ${options.timeoutMs} ms)`));
          } else if (wallMs >= hangLimitMs) {
            kill(slot, new ExtractionError('TIMEOUT', `no answer after ${wallMs} ms (wall-clock limit ${hangLimitMs} ms; ${Math.round(cpuMs)} ms of CPU time)`));
          } else {
            arm(Math.max(MIN_RECHECK_MS, Math.min(options.timeoutMs - cpuMs, hangLimitMs - wallMs)));
          }
        });
      }, delayMs);
    };
    arm(options.timeoutMs);
    void watchMemory(slot, child, job);
  }

  /**
   * Reads the process's resident memory every RSS_POLL_MS while the job runs. The first read comes
   * after one interval, not at once: most pages take a few milliseconds, and a read of /proc for
   * each of them cost the ingesting process about a third of a millisecond per file.
   */
  async function watchMemory(slot: Slot, child: ChildProcess, job: Pending): Promise<void> {
    const running = () => slot.child === child && slot.jobs[0] === job && !slot.killedFor && child.pid !== undefined;
    for (;;) {
      await new Promise((wake) => setTimeout(wake, RSS_POLL_MS).unref());
      if (!running()) return;
      const mb = await residentMb(child.pid!);
      if (mb === null) return;
      if (mb > maxRssMb && running()) {
        kill(slot, new ExtractionError('OUT_OF_MEMORY', `resident memory ${Math.round(mb)} MB over the limit of ${maxRssMb} MB`));
        return;
      }
    }
  }

  /**
   * The slot's process has ended (or failed to start): its running jobs fail, another process
   * starts. The queued jobs never ran there: they go back to the front of the queue.
   */
  function ended(slot: Slot, error: ExtractionError): void {
    const jobs = settle(slot);
    queue.unshift(...slot.queued.splice(0));
    stopStartup(slot);
    slot.child = null;
    slot.killedFor = null;
    for (const job of jobs) job.reject(error);
    if (jobs.length === 0 && ++idleDeaths >= 3 && !broken) {
      broken = new ExtractionError('WORKER_FAILED', `extraction processes keep dying: ${error.message}`);
      for (const queued of queue.splice(0)) queued.reject(broken);
    }
    if (broken || closing) {
      wakeIdleWaiters();
      return;
    }
    spawn(slot);
    dispatch();
  }

  function spawn(slot: Slot): void {
    // An extract-only process warms up without the analysis, which it never needs for a file.
    const role: WorkerRole = roles && !slot.preparer ? 'extracts' : 'prepares';
    const child = fork(workerPath, [JSON.stringify(workerOptions), role], {
      execArgv,
      serialization: 'advanced',
      // stdin: a pipe nothing is written to; the process's watchdog ends it when this process is gone
      // and the pipe closes (worker.ts). stdout and stderr are read, not inherited: a parser's console
      // output must not mix into the command's stdout, and the end of stderr tells the cause of a crash.
      stdio: ['pipe', 'pipe', 'pipe', 'ipc'],
    });
    // An idle pool must not keep the process alive; a running job does, through its timer.
    child.unref();
    child.channel?.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?(): void } | null)?.unref?.();
    // Once the process has ended, its watchdog (if it outlived it) sees the pipe close and ends too.
    child.once('exit', () => child.stdin?.destroy());
    slot.child = child;
    slot.ready = false;
    slot.killedFor = null;
    slot.stderrTail = '';
    slot.cpuMs = null;
    stopStartup(slot);
    slot.startup = setTimeout(() => {
      if (slot.child === child && !slot.ready) kill(slot, new ExtractionError('WORKER_FAILED', `extraction process not ready after ${STARTUP_LIMIT_MS} ms`));
    }, STARTUP_LIMIT_MS);
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        if (slot.child === child) slot.stderrTail = (slot.stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
      });
    }
    child.on('message', (reply: WorkerReply | WorkerReady) => {
      if (slot.child !== child || slot.killedFor) return;
      slot.cpuMs = reply.cpuMs;
      if ('ready' in reply) {
        slot.ready = true;
        stopStartup(slot);
        if (slot.jobs.length) {
          handOver(slot, slot.jobs);
          startTimer(slot);
        }
        dispatch();
        return;
      }
      if (slot.jobs[0]?.id !== reply.id) return;
      const jobs = settle(slot);
      idleDeaths = 0;
      // The process went on with the queued jobs as soon as it answered: their time starts now.
      if (slot.queued.length) {
        slot.jobs = slot.queued;
        slot.queued = [];
        startTimer(slot);
      }
      if ('batch' in reply) jobs.forEach((job, i) => finishPrepared(job, reply.batch[i]));
      else finish(jobs[0], reply);
      dispatch();
    });
    // 'error': could not be started or signalled; 'close': ended, and its stderr is read to the end.
    child.on('error', (error) => {
      if (slot.child !== child) return;
      kill(slot, new ExtractionError('WORKER_FAILED', error.message, { cause: error }));
      if (child.pid === undefined) ended(slot, new ExtractionError('WORKER_FAILED', `could not start an extraction process: ${error.message}`, { cause: error }));
    });
    child.on('close', (code, signal) => {
      if (slot.child !== child) return;
      ended(slot, slot.killedFor ?? endOf(code, signal, slot.stderrTail, options.maxMemoryMb));
    });
  }

  /** Hands jobs to the slot's process, which is ready; their time limit starts when it begins them (startTimer). */
  function handOver(slot: Slot, jobs: Pending[]): void {
    const job = jobs[0];
    const preExtracted = job.preExtracted ? jobs.map((j) => j.preExtracted!) : undefined;
    const preExtractedUrls = job.preExtracted ? jobs.map((j) => j.input.url) : undefined;
    const preExtractedTopics = job.preExtracted ? jobs.map((j) => j.topic !== false) : undefined;
    const preExtractedText = job.preExtracted && jobs.some((j) => j.text) ? jobs.map((j) => j.text) : undefined;
    const message: WorkerJob = { id: job.id, input: job.input, preExtracted, preExtractedUrls, preExtractedTopics, preExtractedText, extractOnly: job.extractOnly, testOnlyHook: job.hook };
    // Serialized (copied) into the IPC channel: the caller's bytes stay as they are.
    const child = slot.child!;
    child.send(message, (error) => {
      if (!error || slot.child !== child || child.exitCode !== null || child.signalCode !== null) return;
      // A process that has just died (EPIPE) is reported by its 'close', with its own cause (a
      // crash, the memory limit), and its queued jobs go back to the queue there.
      if ((error as NodeJS.ErrnoException).code === 'EPIPE' || (error as NodeJS.ErrnoException).code === 'ERR_IPC_CHANNEL_CLOSED') return;
      if (slot.jobs[0] === job || slot.queued[0] === job) kill(slot, new ExtractionError('WORKER_FAILED', `could not hand the job to an extraction process: ${error.message}`, { cause: error }));
    });
  }

  function wakeIdleWaiters(): void {
    if (queue.length === 0 && slots.every((s) => !s.jobs.length && !s.queued.length)) idleWaiters.splice(0).forEach((wake) => wake());
  }

  /**
   * The next jobs from the queue for a slot: one file, or up to PREPARE_BATCH pre-extracted documents
   * (none when an extracting process has nothing it may take). With roles, a preparing process takes
   * preparations first, an extracting one never a preparation of a file extracted here (ROLES).
   */
  function nextJobs(slot: Slot): Pending[] {
    if (!roles) {
      const jobs = [queue.shift()!];
      if (jobs[0].preExtracted) while (jobs.length < PREPARE_BATCH && queue[0]?.preExtracted) jobs.push(queue.shift()!);
      return jobs;
    }
    const { preparer } = slot;
    let first = preparer ? queue.findIndex((job) => job.preExtracted !== undefined) : -1;
    if (first < 0) first = queue.findIndex((job) => preparer || !job.forPreparer);
    if (first < 0) return [];
    // A file's preparation goes alone, as its extraction did: a time limit then fails that file only.
    return isRecord(queue[first]) ? takeBatch(queue, first, isRecord) : queue.splice(first, 1);
  }

  /** Gives every process jobs to run and, once it runs some, the next ones to queue. */
  function dispatch(): void {
    for (const slot of slots) {
      if (queue.length === 0) break;
      if (!slot.child || slot.killedFor) continue;
      if (!slot.jobs.length) {
        slot.jobs = nextJobs(slot);
        if (!slot.jobs.length || !slot.ready) continue;
        handOver(slot, slot.jobs);
        startTimer(slot);
      }
      if (slot.ready && !slot.queued.length && queue.length) {
        slot.queued = nextJobs(slot);
        if (slot.queued.length) handOver(slot, slot.queued);
      }
    }
    wakeIdleWaiters();
  }

  function testOnlyHookFor(input: ExtractInput, job: ExtractJobOptions): TestOnlyHook | undefined {
    return job.testOnlyHook ?? (envHooks.size && input.fileName ? envHooks.get(input.fileName) : undefined);
  }

  for (const slot of slots) spawn(slot);

  return {
    extract(input, job = {}) {
      if (closing) return Promise.reject(new ExtractionError('POOL_CLOSED'));
      if (broken) return Promise.reject(broken);
      if (input.bytes.length > options.maxBytes) {
        return Promise.reject(new ExtractionError('TOO_LARGE', `${input.bytes.length} bytes, limit ${options.maxBytes}`));
      }
      if (input.bytes.length === 0) return Promise.reject(new ExtractionError('EMPTY_FILE'));
      return new Promise<ExtractedDocument>((resolve, reject) => {
        if (!roles) {
          queue.push({ id: nextId++, input, hook: testOnlyHookFor(input, job), resolve, reject });
          dispatch();
          return;
        }
        // Extracted here, prepared (as `prepare` does) where the analyses are kept.
        const hook = testOnlyHookFor(input, job);
        const inPreparation = hook === 'hang-in-preparation';
        // A file begun before close() is finished, unless no preparing process is left to do it.
        const prepareExtracted = (doc: ExtractedDocument, text?: TextPreparation) => {
          if (broken) return reject(broken);
          if (closing && !slots.some((slot) => slot.preparer && slot.child && !slot.killedFor)) return reject(new ExtractionError('POOL_CLOSED'));
          queue.push({ id: nextId++, input: { bytes: new Uint8Array(0), url: input.url }, preExtracted: doc, forPreparer: true, text, hook: inPreparation ? hook : undefined, resolve, reject });
          dispatch();
        };
        queue.push({ id: nextId++, input, extractOnly: true, hook: inPreparation ? undefined : hook, resolve: prepareExtracted, reject });
        dispatch();
      });
    },
    prepare(doc, url = '', options = {}) {
      if (closing) return Promise.reject(new ExtractionError('POOL_CLOSED'));
      if (broken) return Promise.reject(broken);
      return new Promise<ExtractedDocument>((resolve, reject) => {
        queue.push({ id: nextId++, input: { bytes: new Uint8Array(0), url }, preExtracted: doc, topic: options.topic, resolve, reject });
        dispatch();
      });
    },
    async close() {
      closing = true;
      for (const job of queue.splice(0)) job.reject(new ExtractionError('POOL_CLOSED'));
      if (slots.some((s) => s.jobs.length || s.queued.length)) await new Promise<void>((wake) => idleWaiters.push(wake));
      await Promise.all(
        slots.map(async (slot) => {
          const child = slot.child;
          slot.child = null;
          stopStartup(slot);
          if (!child || child.exitCode !== null || child.signalCode !== null) return;
          // Closing the channel ends the process (worker.ts exits on 'disconnect'); a kill if it does not.
          // 'exit', not 'close': after the parent's disconnect() Node never emits 'close' (24.21).
          const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
          // Referenced while closing, so that a caller's await keeps the process alive until the end.
          child.ref();
          child.disconnect();
          const stuck = setTimeout(() => child.kill('SIGKILL'), 5000);
          await gone;
          clearTimeout(stuck);
        }),
      );
    },
  };
}
