// Writes the packed analysis lexicon (dist/lexicon/, see services/core/analysis/lexicon.ts) that each
// process then reads instead of building it from the word lists. Run by `npm run build` after tsc,
// for both ways the code runs: compiled (dist/) and from source (tests); packed files of older code
// or word lists are removed. Without them everything works: each process builds the lexicon itself.
//   node scripts/dev/pack-lexicon.ts
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const sources = ['../../services/core/analysis/lexicon.ts', '../../dist/services/core/analysis/lexicon.js'];
const current = new Set<string>();
for (const source of sources) {
  const url = new URL(source, import.meta.url);
  if (!existsSync(fileURLToPath(url))) continue;
  const module = (await import(url.href)) as typeof import('../../services/core/analysis/lexicon.ts');
  const file = module.packedLexiconFile();
  if (!file) continue;
  if (!existsSync(file)) module.writePackedLexicon(file);
  current.add(file);
  console.log(`packed lexicon: ${file}`);
}
for (const dir of new Set([...current].map((file) => dirname(file)))) {
  for (const name of readdirSync(dir)) {
    if (/^lexicon-[0-9a-f]+\.bin(\..*\.tmp)?$/.test(name) && ![...current].some((file) => basename(file) === name)) rmSync(join(dir, name), { force: true });
  }
}
