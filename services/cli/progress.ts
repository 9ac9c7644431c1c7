import type { IngestEvent, IngestSummary } from '../ingest/pipeline.ts';
import { createProgressDisplay } from './progress-display.ts';
import { printable } from './printable.ts';

// Ingestion's progress (ingest, crawl, demo): inputs read, documents prepared (extracted and
// analysed in the workers), stored and skipped, then the final merge as a phase of its own. The
// display (progress-display.ts) rewrites one line on a terminal and writes a line every ten
// seconds otherwise; skipped files get lines of their own unless quiet. Every run ends with a summary.

export function createProgress(out: NodeJS.WriteStream, quiet: boolean) {
  const display = createProgressDisplay({
    counters: ['read', 'prepared', 'stored', 'skipped'],
    rateOf: 'prepared',
    fd: (out as { fd?: number }).fd ?? 2,
    tty: Boolean(out.isTTY),
  });
  return {
    /** The inputs, counted as the pipeline takes them. */
    async *counted<T>(inputs: AsyncIterable<T>): AsyncGenerator<T> {
      for await (const input of inputs) {
        display.add('read');
        yield input;
      }
    },
    /** A document's extraction or preparation, counted when it settles. */
    prepared<T>(work: Promise<T>): Promise<T> {
      return work.finally(() => display.add('prepared'));
    },
    onEvent(event: IngestEvent) {
      if (event.kind === 'stored') display.add('stored');
      else {
        display.add('skipped');
        if (!quiet) display.message(`skipped ${printable(event.label)}: ${printable(event.reason)}`);
      }
    },
    phase: (text: string) => display.phase(text),
    message: (line: string) => display.message(line),
    /** Clears the progress line; call it before the summary (and on the way out of an error). */
    done: () => display.stop(),
  };
}

export function formatSummary(summary: IngestSummary): string {
  const reasons = Object.entries(summary.skippedByReason)
    .map(([reason, count]) => `${printable(reason)} ${count}`)
    .join(', ');
  return [
    `read ${summary.read}, added ${summary.added}, updated ${summary.updated}, unchanged ${summary.unchanged}, ` +
      `duplicates ${summary.duplicates}, near-duplicates ${summary.nearDuplicates}, skipped ${summary.skipped}` +
      (reasons ? ` (${reasons})` : ''),
  ].join('\n');
}
