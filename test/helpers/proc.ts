import { readdirSync, readFileSync } from 'node:fs';

// Processes as Linux's /proc shows them: what a test checks of the extraction processes and their
// watchdogs (started, killed, left behind).

/** The child processes of `pid`, started by any of its threads; [] once it is gone. */
export function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

/** The arguments a process was started with (its program first), or [] once it is gone. */
export function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return [];
  }
}

/** The children of `pid` whose command line (its arguments joined by spaces) matches `command`. */
export function childrenRunning(pid: number, command: RegExp): number[] {
  return childrenOf(pid).filter((child) => command.test(commandLine(child).join(' ')));
}

/** CPU seconds a process has used, or null once it is gone. */
export function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Whether a process exists and has not ended (a zombie has ended). */
export function isAlive(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
