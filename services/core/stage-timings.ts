import { writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

// Where a search's time goes, for the benchmark only: with FUNDUS_STAGE_TIMINGS=FILE, every stage
// of a search (parsing, analysis, ranking, document reads, snippets, serialisation, the hand-over
// between threads, logging) adds its thread's CPU time and its wall time to per-process totals,
// and SIGUSR2 makes the serving process write them to FILE (`scripts/bench/search.ts` asks before
// and after each measurement). Totals only: no query text, nothing per request. When the variable
// is unset, `stageClock()` returns null and callers skip all timing (no cost).

export interface StageTotal {
  count: number;
  cpuMicros: number;
  wallMicros: number;
}
export type StageTotals = Record<string, StageTotal>;

const FILE = process.env.FUNDUS_STAGE_TIMINGS || null;
export const STAGE_TIMINGS_ON = FILE !== null;

let totals: StageTotals = {};

function cpuMicros(): number {
  const used = process.threadCpuUsage();
  return used.user + used.system;
}

/** Adds one stage's time (or several calls' worth, `count`) to this thread's totals. */
export function addStage(name: string, cpu: number, wall: number, count = 1): void {
  const total = (totals[name] ??= { count: 0, cpuMicros: 0, wallMicros: 0 });
  total.count += count;
  total.cpuMicros += cpu;
  total.wallMicros += wall;
}

/** Adds totals measured on another thread (a search worker's, sent with its answer). */
export function mergeStages(other: StageTotals): void {
  for (const [name, t] of Object.entries(other)) addStage(name, t.cpuMicros, t.wallMicros, t.count);
}

/** This thread's totals since the last call, reset (a worker sends them with each answer). */
export function takeStages(): StageTotals {
  const taken = totals;
  totals = {};
  return taken;
}

/** Times consecutive stages of one thread: each `lap` closes the stage that began at the previous lap. */
export class StageClock {
  private cpu = cpuMicros();
  private wall = performance.now();

  lap(name: string): void {
    const cpu = cpuMicros();
    const wall = performance.now();
    addStage(name, cpu - this.cpu, (wall - this.wall) * 1000);
    this.cpu = cpu;
    this.wall = wall;
  }

  /** Starts the next stage now without recording the time since the last lap. */
  skip(): void {
    this.cpu = cpuMicros();
    this.wall = performance.now();
  }
}

/** A clock when stage timings are on, else null. */
export function stageClock(): StageClock | null {
  return STAGE_TIMINGS_ON ? new StageClock() : null;
}

let written = 0;
/** Gathers other threads' totals before they are written (serving threads: services/cli/gateway-threads.ts). */
let collectors: (() => Promise<void>)[] = [];

/** Registers a gatherer run on SIGUSR2 before the file is written; returns its removal. */
export function collectStagesBeforeWriting(collect: () => Promise<void>): () => void {
  collectors.push(collect);
  return () => {
    collectors = collectors.filter((c) => c !== collect);
  };
}

if (STAGE_TIMINGS_ON && isMainThread) {
  process.on('SIGUSR2', () => {
    void Promise.allSettled(collectors.map((collect) => collect())).then(() => {
      written++;
      writeFileSync(FILE!, JSON.stringify({ seq: written, pid: process.pid, stages: totals }));
    });
  });
}
