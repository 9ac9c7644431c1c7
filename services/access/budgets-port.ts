import type { MessagePort } from 'node:worker_threads';
import type { BudgetOutcome, Budgets } from './budgets.ts';
import type { RateLimit } from './settings.ts';

// One process, one set of budgets (spec 8 rule 3), however many threads serve its gateway
// (services/cli/gateway-threads.ts): a serving thread does not count itself but asks the main thread,
// which holds the process's only counters — in memory, or Redis with this replica's one insurance
// share. Only budgeted calls pay this round trip; unlimited keys and free routes never consume.

type BudgetOp = { op: 'consume'; budget: string; limit: RateLimit } | { op: 'ping' };
type BudgetCall = BudgetOp & { id: number };
type BudgetAnswer = { id: number; ok: true; value: BudgetOutcome | boolean } | { id: number; ok: false; message: string };

/** The main thread's side: answers a serving thread's budget calls from the process's budgets. */
export function answerBudgetCalls(port: MessagePort, budgets: Budgets): void {
  port.on('message', (call: BudgetCall) => {
    const value = call.op === 'consume' ? budgets.consume(call.budget, call.limit) : budgets.ping();
    value.then(
      (v) => port.postMessage({ id: call.id, ok: true, value: v } satisfies BudgetAnswer),
      (error: unknown) => port.postMessage({ id: call.id, ok: false, message: error instanceof Error ? error.message : String(error) } satisfies BudgetAnswer),
    );
  });
}

/** A serving thread's budgets: every call answered by the main thread over `port`. */
export function budgetsOverPort(port: MessagePort): Budgets {
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  port.on('message', (answer: BudgetAnswer) => {
    const waiting = pending.get(answer.id);
    pending.delete(answer.id);
    if (!waiting) return;
    if (answer.ok) waiting.resolve(answer.value);
    else waiting.reject(new Error(`budget check failed: ${answer.message}`));
  });
  // The port must not keep the thread alive once its server has closed.
  port.unref();
  const ask = <T>(call: BudgetOp): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      port.postMessage({ ...call, id });
    });
  return {
    consume: (budget, limit) => ask<BudgetOutcome>({ op: 'consume', budget, limit }),
    ping: () => ask<boolean>({ op: 'ping' }),
    async close() {
      port.close();
    },
  };
}
