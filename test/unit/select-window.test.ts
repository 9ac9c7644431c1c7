import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../scripts/bench/lib/random.ts';
import { selectWindow } from '../../services/index/sqlite/list-search.ts';

/** What selectWindow must give: the window of all items sorted by score, higher first, then by lower id (FTS5's rank, rowid). */
function reference(items: number[], from: number, to: number, score: Float64Array): number[] {
  return [...items].sort((a, b) => score[b] - score[a] || a - b).slice(from, to);
}

describe('selectWindow (the page of a ranked list of candidates)', () => {
  const shapes: { name: string; value: (next: () => number, i: number) => number }[] = [
    { name: 'spread scores', value: (next) => next() * 20 - 10 },
    { name: 'many ties', value: (next) => Math.floor(next() * 40) / 4 },
    { name: 'one score for all', value: () => 1.5 },
    { name: 'scores rising with the id', value: (_, i) => i / 1000 },
    { name: 'a few high scores', value: (next) => (next() < 0.001 ? 50 + next() : next()) },
  ];
  for (const shape of shapes) {
    it(`gives the exact window, ties by row id, over large and small candidate sets (${shape.name})`, () => {
      const next = mulberry32(7); // seeded: a failure can be run again
      for (const count of [300, 5000, 70_000, 200_000]) {
        const score = new Float64Array(count + 10);
        const ids = Array.from({ length: count }, (_, i) => i + 10);
        // Candidates arrive in no order (the order of the lists they came from).
        for (let i = ids.length - 1; i > 0; i--) {
          const j = Math.floor(next() * (i + 1));
          [ids[i], ids[j]] = [ids[j], ids[i]];
        }
        for (const id of ids) score[id] = shape.value(next, id);
        for (const [from, to] of [[0, 10], [0, 1051], [990, 1051], [0, 10_051], [10_000, 10_051], [count - 5, count + 5]]) {
          if (from >= count) continue;
          const items = Uint32Array.from(ids);
          expect(selectWindow(items, count, from, to, score), `${count} items, [${from}, ${to})`).toEqual(reference(ids, from, to, score));
        }
      }
    });
  }
});
