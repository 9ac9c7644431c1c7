// Throughput of analyzeForIndex over the corpus HTML text (tags stripped):
//   node_modules/.bin/node scripts/bench/analysis.ts [rounds]
// The first round starts with a cold word cache; later rounds show the warm rate.
import { analyzeForIndex } from '../../services/core/analysis/index.ts';
import { corpusHtmlTexts } from './analysis-corpus.ts';

const rounds = Number(process.argv[2] ?? 3);
const texts = corpusHtmlTexts();
const bytes = texts.reduce((sum, t) => sum + Buffer.byteLength(t), 0);
console.log(`${texts.length} pages, ${(bytes / 1e6).toFixed(1)} MB of text`);

for (let round = 1; round <= rounds; round++) {
  let tokens = 0;
  const started = process.hrtime.bigint();
  for (const text of texts) tokens += analyzeForIndex(text).exact.length > 0 ? 1 : 0;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(`round ${round}: ${seconds.toFixed(2)} s, ${(bytes / 1e6 / seconds).toFixed(1)} MB/s, ${(texts.length / seconds).toFixed(0)} pages/s${tokens ? '' : ''}`);
}
