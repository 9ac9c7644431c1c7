// The benchmark's plot, an SVG written by hand: latency percentiles (HTTP p50/p95/p99 at
// concurrency 8, and the FTS5 floor's p50) and throughput (concurrency 1, 8, 64) against
// collection size, both on a log x axis; latency on a log y axis.

export interface PlotPoint {
  docs: number;
  p50: number;
  p95: number;
  p99: number;
  floorP50: number | null;
  throughput: Record<string, number>;
  /** HTTP at concurrency 1. */
  c1P50?: number;
  c1P99?: number;
  /** Xapian in-process on one thread, same queries (its throughput: 1 ÷ mean latency). */
  xapianP50?: number;
  xapianP99?: number;
  xapianThroughput?: number;
}

const W = 900;
const H = 500;
const PANEL = { top: 72, bottom: 332, width: 340 };
const LEFT_X = 80;
const RIGHT_X = 520;
const COLORS = { p50: '#1b6ca8', p95: '#e08a00', p99: '#c0392b', floor: '#555555', c1: '#7f8c8d', c8: '#1b6ca8', c64: '#8e44ad', xapian: '#27ae60' };

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function label(n: number): string {
  return n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n);
}

function niceLogTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= min * 0.999 && v <= max * 1.001) ticks.push(v);
    }
  }
  return ticks;
}

function niceLinearMax(max: number): number {
  const e = 10 ** Math.floor(Math.log10(max || 1));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * e >= max) return m * e;
  return 10 * e;
}

export function renderPlot(points: PlotPoint[], subtitle: string): string {
  const sizes = points.map((p) => p.docs);
  const xMin = Math.min(10_000, ...sizes);
  const xMax = Math.max(1_000_000, ...sizes);
  const xOf = (left: number) => (docs: number) => left + ((Math.log10(docs) - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin))) * PANEL.width;

  const latencies = points.flatMap((p) => [p.p50, p.p95, p.p99, p.floorP50 ?? p.p50, p.c1P50 ?? p.p50, p.xapianP50 ?? p.p50, p.xapianP99 ?? p.p50]).filter((v) => v > 0 && Number.isFinite(v));
  const yLo = 10 ** Math.floor(Math.log10(Math.min(...latencies, 1)));
  const yHi = 10 ** Math.ceil(Math.log10(Math.max(...latencies, 100)));
  const yLat = (ms: number) => PANEL.bottom - ((Math.log10(Math.max(ms, yLo)) - Math.log10(yLo)) / (Math.log10(yHi) - Math.log10(yLo))) * (PANEL.bottom - PANEL.top);
  const tMax = niceLinearMax(Math.max(...points.flatMap((p) => [...Object.values(p.throughput), 1.5 * (p.xapianThroughput ?? 0)]), 1000));
  const yThr = (rps: number) => PANEL.bottom - (rps / tMax) * (PANEL.bottom - PANEL.top);

  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif" font-size="12">`);
  out.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
  out.push(`<text x="${W / 2}" y="20" text-anchor="middle" font-size="15" font-weight="bold">Fundus POST /v1/search against collection size</text>`);
  out.push(`<text x="${W / 2}" y="38" text-anchor="middle" fill="#555" font-size="11">${esc(subtitle)}</text>`);

  const axes = (left: number, title: string, yTicks: { v: number; y: number; text: string }[]) => {
    const x = xOf(left);
    out.push(`<text x="${left + PANEL.width / 2}" y="${PANEL.top - 6}" text-anchor="middle" font-weight="bold">${esc(title)}</text>`);
    for (const t of yTicks) {
      out.push(`<line x1="${left}" x2="${left + PANEL.width}" y1="${t.y.toFixed(1)}" y2="${t.y.toFixed(1)}" stroke="#e6e6e6"/>`);
      out.push(`<text x="${left - 6}" y="${(t.y + 4).toFixed(1)}" text-anchor="end" fill="#333">${t.text}</text>`);
    }
    for (const docs of niceLogTicks(xMin, xMax).filter((v) => String(v).startsWith('1'))) {
      const px = x(docs).toFixed(1);
      out.push(`<line x1="${px}" x2="${px}" y1="${PANEL.top}" y2="${PANEL.bottom}" stroke="#e6e6e6"/>`);
      out.push(`<text x="${px}" y="${PANEL.bottom + 16}" text-anchor="middle" fill="#333">${label(docs)}</text>`);
    }
    out.push(`<rect x="${left}" y="${PANEL.top}" width="${PANEL.width}" height="${PANEL.bottom - PANEL.top}" fill="none" stroke="#999"/>`);
    out.push(`<text x="${left + PANEL.width / 2}" y="${PANEL.bottom + 34}" text-anchor="middle" fill="#333">documents (log scale)</text>`);
  };
  const series = (left: number, values: [number, number][], y: (v: number) => number, color: string, dashed = false) => {
    const x = xOf(left);
    const pts = values.filter(([, v]) => Number.isFinite(v) && v > 0).map(([d, v]) => `${x(d).toFixed(1)},${y(v).toFixed(1)}`);
    if (pts.length > 1) out.push(`<polyline points="${pts.join(' ')}" fill="none" stroke="${color}" stroke-width="2"${dashed ? ' stroke-dasharray="5 4"' : ''}/>`);
    for (const p of pts) {
      const [cx, cy] = p.split(',');
      out.push(`<circle cx="${cx}" cy="${cy}" r="3.5" fill="${color}"/>`);
    }
  };
  // Legends sit under the panels, two entries a row, so that they never cover a point.
  const legend = (left: number, entries: [string, string, boolean | 'target'][]) => {
    entries.forEach(([text, color, style], i) => {
      const x = left + (i % 2) * 175;
      const y = PANEL.bottom + 56 + Math.floor(i / 2) * 16;
      if (style === 'target') out.push(`<path d="M ${x + 20} ${y - 9} l 5 5 l -5 5 l -5 -5 z" fill="none" stroke="${color}" stroke-width="1.5"/>`);
      else out.push(`<line x1="${x + 10}" x2="${x + 30}" y1="${y - 4}" y2="${y - 4}" stroke="${color}" stroke-width="2"${style ? ' stroke-dasharray="5 4"' : ''}/>`);
      out.push(`<text x="${x + 36}" y="${y}" fill="#222">${esc(text)}</text>`);
    });
  };
  const targets = (left: number, marks: [number, number][], y: (v: number) => number, color: string) => {
    const x = xOf(left);
    for (const [docs, v] of marks) {
      if (docs < xMin || docs > xMax) continue;
      out.push(`<path d="M ${x(docs).toFixed(1)} ${(y(v) - 5).toFixed(1)} l 5 5 l -5 5 l -5 -5 z" fill="none" stroke="${color}" stroke-width="1.5"/>`);
    }
  };

  const latTicks = niceLogTicks(yLo, yHi).map((v) => ({ v, y: yLat(v), text: `${v} ms` }));
  axes(LEFT_X, 'latency, concurrency 8 (log scale)', latTicks);
  series(LEFT_X, points.map((p) => [p.docs, p.p50]), yLat, COLORS.p50);
  series(LEFT_X, points.map((p) => [p.docs, p.p95]), yLat, COLORS.p95);
  series(LEFT_X, points.map((p) => [p.docs, p.p99]), yLat, COLORS.p99);
  series(LEFT_X, points.map((p) => [p.docs, p.floorP50 ?? Number.NaN]), yLat, COLORS.floor, true);
  series(LEFT_X, points.map((p) => [p.docs, p.c1P50 ?? Number.NaN]), yLat, COLORS.c1);
  series(LEFT_X, points.map((p) => [p.docs, p.xapianP50 ?? Number.NaN]), yLat, COLORS.xapian, true);
  series(LEFT_X, points.map((p) => [p.docs, p.xapianP99 ?? Number.NaN]), yLat, COLORS.p99, true);
  targets(LEFT_X, [[1_000_000, 30]], yLat, COLORS.p99);
  legend(LEFT_X, [
    ['c=8 p50', COLORS.p50, false],
    ['c=8 p95', COLORS.p95, false],
    ['c=8 p99', COLORS.p99, false],
    ['c=1 p50', COLORS.c1, false],
    ['Xapian p50 (1 thread)', COLORS.xapian, true],
    ['Xapian p99', COLORS.p99, true],
    ['FTS5 floor p50', COLORS.floor, true],
    ['target: c=8 p99 at 1M', COLORS.p99, 'target'],
  ]);

  const thrTicks = [0, 0.25, 0.5, 0.75, 1].map((f) => ({ v: f * tMax, y: yThr(f * tMax), text: String(Math.round(f * tMax)) }));
  axes(RIGHT_X, 'throughput, searches per second', thrTicks);
  for (const [c, color] of [['1', COLORS.c1], ['8', COLORS.c8], ['64', COLORS.c64]] as const) {
    series(RIGHT_X, points.map((p) => [p.docs, p.throughput[c] ?? Number.NaN]), yThr, color);
  }
  series(RIGHT_X, points.map((p) => [p.docs, p.xapianThroughput ?? Number.NaN]), yThr, COLORS.xapian, true);
  targets(RIGHT_X, points.filter((p) => p.xapianThroughput).map((p) => [p.docs, 1.5 * p.xapianThroughput!]), yThr, COLORS.c8);
  legend(RIGHT_X, [
    ['concurrency 1', COLORS.c1, false],
    ['concurrency 8', COLORS.c8, false],
    ['concurrency 64', COLORS.c64, false],
    ['Xapian, one thread', COLORS.xapian, true],
    ['target c=8: 1.5 × Xapian', COLORS.c8, 'target'],
  ]);
  out.push(`<text x="${W / 2}" y="${H - 8}" text-anchor="middle" fill="#777">${esc(`measured: ${points.map((p) => label(p.docs)).join(', ')} documents; made by scripts/bench/search.ts`)}</text>`);
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
