import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ANONYMOUS_BUDGET, type Budgets, keyBudget } from '../../services/access/budgets.ts';

// One suite for every budget store (STYLE.md "Tests"): the memory and the Redis budgets must count
// alike, and their Retry-After must be honest: waiting that long gets the next call admitted.

export interface BudgetFixture {
  budgets: Budgets;
  cleanup(): Promise<void>;
}

const ONE_PER_SECOND = { points: 1, durationSeconds: 1 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function budgetContract(name: string, makeFixture: () => Promise<BudgetFixture>): void {
  describe(`budget contract: ${name}`, () => {
    let fixture: BudgetFixture;
    let budgets: Budgets;

    beforeEach(async () => {
      fixture = await makeFixture();
      budgets = fixture.budgets;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('admits one call per second and names an honest Retry-After', async () => {
      const first = await budgets.consume(ANONYMOUS_BUDGET, ONE_PER_SECOND);
      expect(first).toMatchObject({ admitted: true, limit: 1, remaining: 0 });
      const second = await budgets.consume(ANONYMOUS_BUDGET, ONE_PER_SECOND);
      expect(second.admitted).toBe(false);
      expect(Number.isInteger(second.resetSeconds)).toBe(true);
      expect(second.resetSeconds).toBe(1);
      await sleep(second.resetSeconds * 1000);
      expect((await budgets.consume(ANONYMOUS_BUDGET, ONE_PER_SECOND)).admitted).toBe(true);
    });

    it('counts N per minute and tells how long the window still runs', async () => {
      const limit = { points: 3, durationSeconds: 60 };
      const outcomes = [];
      for (let i = 0; i < 4; i += 1) outcomes.push(await budgets.consume('key:fk_minute00', limit));
      expect(outcomes.map((o) => o.admitted)).toEqual([true, true, true, false]);
      expect(outcomes.map((o) => o.remaining)).toEqual([2, 1, 0, 0]);
      expect(outcomes[3].resetSeconds).toBeGreaterThanOrEqual(59);
      expect(outcomes[3].resetSeconds).toBeLessThanOrEqual(60);
    });

    it('keeps budgets apart: anonymous, each key, public', async () => {
      expect((await budgets.consume(ANONYMOUS_BUDGET, ONE_PER_SECOND)).admitted).toBe(true);
      expect((await budgets.consume(keyBudget('fk_aaaaaaaa'), ONE_PER_SECOND)).admitted).toBe(true);
      expect((await budgets.consume(keyBudget('fk_bbbbbbbb'), ONE_PER_SECOND)).admitted).toBe(true);
      expect((await budgets.consume('public', ONE_PER_SECOND)).admitted).toBe(true);
      expect((await budgets.consume(ANONYMOUS_BUDGET, ONE_PER_SECOND)).admitted).toBe(false);
      expect((await budgets.consume(keyBudget('fk_aaaaaaaa'), ONE_PER_SECOND)).admitted).toBe(false);
    });

    it('starts a fresh window when a key gets a new limit', async () => {
      const budget = keyBudget('fk_changing');
      expect((await budgets.consume(budget, ONE_PER_SECOND)).admitted).toBe(true);
      expect((await budgets.consume(budget, ONE_PER_SECOND)).admitted).toBe(false);
      expect((await budgets.consume(budget, { points: 2, durationSeconds: 1 })).admitted).toBe(true);
    });

    it('admits exactly the budget under concurrent calls', async () => {
      const limit = { points: 5, durationSeconds: 10 };
      const outcomes = await Promise.all(Array.from({ length: 25 }, () => budgets.consume('key:fk_parallel', limit)));
      expect(outcomes.filter((o) => o.admitted)).toHaveLength(5);
      for (const refused of outcomes.filter((o) => !o.admitted)) expect(refused.resetSeconds).toBeGreaterThanOrEqual(1);
    });

    it('answers ping', async () => {
      expect(await budgets.ping()).toBe(true);
    });
  });
}
