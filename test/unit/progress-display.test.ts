import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProgressDisplay } from '../../services/cli/progress-display.ts';

// The drawing thread of the progress display, writing into a real file descriptor. Waits are
// bounded loops on what was written, never on the clock.

async function until(file: string, pattern: RegExp): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const text = readFileSync(file, 'utf8');
    if (pattern.test(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never written: ${pattern}\n${readFileSync(file, 'utf8')}`);
}

function output() {
  const file = join(mkdtempSync(join(tmpdir(), 'fundus-progress-')), 'out');
  const fd = openSync(file, 'w');
  return { file, fd };
}

describe('progress display', () => {
  it('without a terminal writes whole plain lines at its interval, with the counters and the rate', async () => {
    const { file, fd } = output();
    const display = createProgressDisplay({ counters: ['read', 'stored'], rateOf: 'stored', fd, tty: false, intervalMs: 20 });
    display.add('read', 3);
    display.set('stored', 2);
    await until(file, /^progress: 3 read · 2 stored · \d+\/s · [\d.]+ s$/m);
    display.phase('optimizing');
    await until(file, /· optimizing \([\d.]+ s\)$/m);
    await display.stop();
    closeSync(fd);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toMatch(/[\r\x1b]/);
    expect(text.endsWith('\n')).toBe(true);
  });

  it('on a terminal rewrites one line and clears it when stopped', async () => {
    const { file, fd } = output();
    const display = createProgressDisplay({ counters: ['documents'], fd, tty: true, intervalMs: 20 });
    display.add('documents', 7);
    await until(file, /\r\x1b\[K {2}7 documents · [\d.]+ s/);
    await display.stop();
    closeSync(fd);
    const text = readFileSync(file, 'utf8');
    expect(text.endsWith('\r\x1b[K')).toBe(true);
    expect(text).not.toContain('\n');
  });

  it('draws even while the main thread is blocked (the merge and batch commits are synchronous)', async () => {
    const { file, fd } = output();
    const display = createProgressDisplay({ counters: ['read'], fd, tty: false, intervalMs: 20 });
    display.phase('busy');
    // Without a terminal the thread starts half an interval after the display: its first line (with
    // the phase named before it started) tells it runs.
    await until(file, /· busy \([\d.]+ s\)$/m);
    // Blocks this thread until the drawing thread has written two more lines on its own.
    const lines = () => readFileSync(file, 'utf8').split('\n').filter((line) => line.includes('busy')).length;
    const before = lines();
    const spinUntil = Date.now() + 60_000;
    while (lines() < before + 2 && Date.now() < spinUntil) {
      /* a synchronous loop, like SQLite's merge */
    }
    expect(lines()).toBeGreaterThanOrEqual(before + 2);
    await display.stop();
    closeSync(fd);
  });

  // Its first plain line is due after ten seconds: a shorter command never starts the thread.
  it.skipIf(!existsSync('/proc/self/task'))('without a terminal starts no thread for a command that ends before half an interval', async () => {
    const threads = () => readdirSync('/proc/self/task').length;
    const { file, fd } = output();
    const before = threads();
    const display = createProgressDisplay({ counters: ['read'], fd, tty: false, intervalMs: 10_000 });
    display.add('read', 5);
    display.phase('kurz');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(threads()).toBe(before);
    await display.stop();
    closeSync(fd);
    expect(readFileSync(file, 'utf8')).toBe('');
  });

  it('disabled, it draws nothing and stops at once', async () => {
    const display = createProgressDisplay({ counters: ['read'], enabled: false });
    display.add('read');
    await display.stop();
  });
});
