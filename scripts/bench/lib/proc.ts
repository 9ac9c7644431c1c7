// Process helpers of the benchmarks: peak memory and CPU time of a running process from /proc,
// and a child process whose output is collected and whose peak RSS is sampled while it runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** VmHWM (peak resident set) of a process in bytes; 0 once it has exited. */
export function peakRssOf(pid: number): number {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** User + system CPU seconds a process has used so far (all its threads). */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return 0;
  }
}

/** Resident anonymous memory (heap, stacks; not mapped file pages) of a process in bytes. */
export function anonRssOf(pid: number): number {
  try {
    return Number(/RssAnon:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/**
 * Samples a process's VmHWM every `everyMs` until stopped; returns the highest value seen. Also
 * keeps the highest RssAnon: VmHWM counts the pages of memory-mapped files (an mmap'ed index), which
 * the kernel shares with its page cache and can drop; RssAnon is the memory the process itself holds.
 */
export function watchPeakRss(pid: number, everyMs = 50): { stop(): number; peek(): number; peakAnon(): number } {
  let peak = peakRssOf(pid);
  let anon = anonRssOf(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, peakRssOf(pid));
    anon = Math.max(anon, anonRssOf(pid));
  }, everyMs);
  timer.unref();
  return {
    peek: () => Math.max(peak, peakRssOf(pid)),
    peakAnon: () => Math.max(anon, anonRssOf(pid)),
    stop() {
      clearInterval(timer);
      return (peak = Math.max(peak, peakRssOf(pid)));
    },
  };
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
  peakRss: number;
}

/** Runs a command to its end, collecting its output and sampling its peak RSS. */
export async function runCommand(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Finished> {
  const started = performance.now();
  const child: ChildProcess = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const rss = watchPeakRss(child.pid!);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // Read VmHWM just before the process is reaped: 'exit' fires before 'close'.
  let peakAtExit = 0;
  child.on('exit', () => (peakAtExit = rss.stop()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr, seconds: (performance.now() - started) / 1000, peakRss: Math.max(peakAtExit, rss.stop()) };
}

/** CPU seconds the whole machine has spent busy (all cores; /proc/stat: everything but idle and iowait). */
export function machineBusySeconds(): number {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + (steal || 0)) / 100;
  } catch {
    return 0;
  }
}

/**
 * Waits until the machine is quiet (other work using less than `threshold` cores over a 2 s
 * window), at most `maxSeconds`. Returns the cores last seen busy and whether it got quiet.
 */
export async function waitForQuiet(maxSeconds: number, threshold = 0.25, onWait?: (busy: number) => void): Promise<{ busyCores: number; quiet: boolean; waitedSeconds: number }> {
  const started = performance.now();
  let busy = 0;
  for (;;) {
    const before = machineBusySeconds();
    const t = performance.now();
    await new Promise((r) => setTimeout(r, 2000));
    busy = (machineBusySeconds() - before) / ((performance.now() - t) / 1000);
    const waitedSeconds = (performance.now() - started) / 1000;
    if (busy < threshold) return { busyCores: busy, quiet: true, waitedSeconds };
    if (waitedSeconds >= maxSeconds) return { busyCores: busy, quiet: false, waitedSeconds };
    onWait?.(busy);
  }
}

/** CPU seconds per thread name of a process (MainThread, WorkerThread, V8Worker, libuv-worker, ...). */
export function threadCpuOf(pid: number): Record<string, number> {
  return cpuByName(threadsOf(pid).values());
}

/** CPU seconds summed by thread name. */
export function cpuByName(threads: Iterable<{ name: string; seconds: number }>): Record<string, number> {
  const byName: Record<string, number> = {};
  for (const { name, seconds } of threads) byName[name] = (byName[name] ?? 0) + seconds;
  return byName;
}

/** Each running thread of a process by thread id: its name and its CPU seconds (user + system) so far. */
export function threadsOf(pid: number): Map<number, { name: string; seconds: number }> {
  const threads = new Map<number, { name: string; seconds: number }>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        threads.set(Number(tid), { name, seconds: (Number(fields[11]) + Number(fields[12])) / 100 });
      } catch {
        // the thread ended meanwhile
      }
    }
  } catch {
    // the process ended
  }
  return threads;
}
