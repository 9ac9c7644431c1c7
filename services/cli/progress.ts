import type { IngestEvent, IngestSummary } from '../ingest/pipeline.ts';
import { printable } from './printable.ts';

// Long runs show a progress line on a TTY; every run ends with a summary (issue: ingestion).

export function createProgress(out: NodeJS.WriteStream, quiet: boolean) {
  const tty = Boolean(out.isTTY);
  let stored = 0;
  let skipped = 0;
  let lastDraw = 0;
  const started = Date.now();
  const draw = (force = false) => {
    const now = Date.now();
    if (!tty || (!force && now - lastDraw < 100)) return;
    lastDraw = now;
    const seconds = Math.max((now - started) / 1000, 0.001);
    out.write(`\r\x1b[K  ${stored + skipped} read · ${stored} stored · ${skipped} skipped · ${Math.round((stored + skipped) / seconds)}/s`);
  };
  return {
    onEvent(event: IngestEvent) {
      if (event.kind === 'stored') stored++;
      else {
        skipped++;
        if (!quiet) out.write(`${tty ? '\r\x1b[K' : ''}skipped ${printable(event.label)}: ${printable(event.reason)}\n`);
      }
      draw();
    },
    done() {
      draw(true);
      if (tty) out.write('\n');
    },
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
