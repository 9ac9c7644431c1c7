// Percentiles and plain-text tables of the benchmarks.

/** Nearest-rank percentile of latencies in milliseconds (p in 0..100); NaN for no samples. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export interface Percentiles {
  samples: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    samples: sorted.length,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? Number.NaN),
    mean: round(sorted.length ? sum / sorted.length : Number.NaN),
  };
}

/** Three significant digits at most, as a number (JSON-friendly). */
export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  if (value === 0) return 0;
  const digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(value))));
  return Number(value.toFixed(Math.min(digits, 4)));
}

export function ms(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '–' : `${round(value)} ms`;
}

export function ratio(value: number | null | undefined, base: number | null | undefined): string {
  if (value === null || value === undefined || base === null || base === undefined || !Number.isFinite(value) || !Number.isFinite(base) || base <= 0) return '–';
  return `${round(value / base)}×`;
}

export function mib(bytes: number | null | undefined): string {
  return bytes === null || bytes === undefined || !Number.isFinite(bytes) ? '–' : `${Math.round(bytes / 1048576)} MiB`;
}

export function count(n: number): string {
  return n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n);
}

/** A Markdown table. */
export function table(header: string[], rows: (string | number)[][]): string {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  return lines.join('\n');
}
