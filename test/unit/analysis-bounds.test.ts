import { describe, expect, it } from 'vitest';
import { MAX_SPLIT_LENGTH, splitCompound, splitterWork } from '../../services/core/analysis/compounds.ts';
import { analyzeForIndex, analyzeQuery, analyzeWord } from '../../services/core/analysis/index.ts';
import { lexicon } from '../../services/core/analysis/lexicon.ts';

/** Splitter steps taken while analysing `word` (a fresh word each time: the word cache would hide the work). */
function stepsFor(analyse: () => void): number {
  const before = splitterWork.steps;
  analyse();
  return splitterWork.steps - before;
}

// The splitter's work per token is bounded by MAX_SPLIT_LENGTH × the longest noun: a hostile
// token (issue #19: 'haus'×1000 took 149 s) costs no more than the longest real word.
describe('compound splitting is bounded per token', () => {
  const bound = 4 * MAX_SPLIT_LENGTH * (lexicon().longest + 3);

  it('counts real work for a long real compound', () => {
    const steps = stepsFor(() => analyzeWord('Donaudampfschifffahrtsgesellschaftskapitänsmützen'));
    expect(steps).toBeGreaterThan(10);
    expect(steps).toBeLessThanOrEqual(bound);
  });

  it("'haus'×1000, 'haus'×16 and a 1 MB token stay within the bound", () => {
    for (const token of ['haus'.repeat(1000), 'haus'.repeat(16), 'Bundestagswahl'.repeat(75_000), 'a'.repeat(1_000_000)]) {
      const steps = stepsFor(() => analyzeForIndex(token));
      expect(steps).toBeLessThanOrEqual(bound);
      expect(stepsFor(() => analyzeQuery(token))).toBeLessThanOrEqual(bound);
    }
  });

  it('the work does not grow with the token length', () => {
    const short = stepsFor(() => splitCompound('hausbau'.repeat(9).slice(0, MAX_SPLIT_LENGTH)));
    const long = stepsFor(() => splitCompound('hausbau'.repeat(150_000)));
    expect(long).toBeLessThanOrEqual(short);
  });

  it('still analyses a 1 MB token: one exact token, one base', () => {
    const token = 'Haus'.repeat(262_144);
    const { exact, base } = analyzeForIndex(token);
    expect(exact).toBe(token.toLowerCase());
    expect(base.split(' ')).toHaveLength(1);
  });

  it('splits real compounds up to the cap', () => {
    const parts = splitCompound('rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz');
    expect(parts?.at(-1)?.lemma).toBe('gesetz');
  });
});
