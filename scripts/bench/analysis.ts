// Throughput of analyzeForIndex over the corpus HTML text (tags stripped):
//   node_modules/.bin/node scripts/bench/analysis.ts [rounds]
// Round 1 starts with a cold word cache (every distinct word is stemmed and
// split once); later rounds show the steady state of a long ingestion, where
// most words have been seen before.
import { analyzeForIndex } from '../../services/core/analysis/index.ts';
import { corpusHtmlTexts } from './analysis-corpus.ts';

const rounds = Number(process.argv[2] ?? 4);
const texts = corpusHtmlTexts();
const bytes = texts.reduce((sum, t) => sum + Buffer.byteLength(t), 0);
console.log(`${texts.length} pages, ${(bytes / 1e6).toFixed(1)} MB of text (UTF-8)`);

let checksum = 0;
for (let round = 1; round <= rounds; round++) {
  const started = process.hrtime.bigint();
  const cpuStarted = process.cpuUsage();
  for (const text of texts) {
    const { exact, base } = analyzeForIndex(text);
    // Touch both streams so that lazily concatenated strings are flattened, as a consumer would.
    checksum += exact.charCodeAt(exact.length >> 1) + base.charCodeAt(base.length >> 1) || 0;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuStarted);
  // CPU seconds of this process: steadier than wall time on a shared machine.
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const label = round === 1 ? 'cold cache' : 'warm cache';
  console.log(
    `round ${round} (${label}): wall ${seconds.toFixed(2)} s = ${(bytes / 1e6 / seconds).toFixed(1)} MB/s, ` +
      `cpu ${cpuSeconds.toFixed(2)} s = ${(bytes / 1e6 / cpuSeconds).toFixed(1)} MB/s, ${(texts.length / seconds).toFixed(0)} pages/s`,
  );
}
if (checksum < 0) console.log(checksum);

// Hostile tokens (issue #19): one long "word" must cost about as much as its bytes, not more.
for (const [name, token] of [
  ["'haus'×1000", 'haus'.repeat(1000)],
  ['1 MB single token', 'Bundestagswahl'.repeat(75_000)],
] as const) {
  const started = process.hrtime.bigint();
  analyzeForIndex(token);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  console.log(`hostile token ${name} (${token.length} chars): ${ms.toFixed(0)} ms`);
}
