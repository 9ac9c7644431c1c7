import { describe, expect, it } from 'vitest';
import { createMemoryBudgets } from '../../services/access/budgets.ts';
import { CONTRACT_DOCS, makeDoc } from '../helpers/documents.ts';
import { getJson, postJson } from '../helpers/gateway.ts';
import { mastodonStatus, realPublicGuard, startTestSearchWeb } from '../helpers/search-web.ts';

// The public budget (spec 8): 60 requests a minute, one global budget shared by all callers and all
// five public endpoints (and by all replicas sharing the budget store), with the real public guard.

const STATUSES = [mastodonStatus({ content: '<p>Abends in der Oper</p>' })];

describe('the public budget (real public guard)', () => {
  it('admits 60 requests a minute across all public endpoints, then 429 with an integer Retry-After', async () => {
    const limited = await startTestSearchWeb({ webDocs: CONTRACT_DOCS.map(makeDoc), statuses: STATUSES, guard: realPublicGuard() });
    try {
      const calls = [
        () => postJson(`${limited.url}/api/search`, { q: 'Haus' }),
        () => postJson(`${limited.url}/api/news`, {}),
        () => postJson(`${limited.url}/api/fediverse/search`, { q: 'Oper' }),
        () => postJson(`${limited.url}/api/social`, {}),
        () => getJson(`${limited.url}/api/options`),
        () => postJson(`${limited.url}/api/search`, { q: '' }), // admitted malformed calls count too (spec 7 rule 2)
      ];
      // Unknown paths (scanners) and the page cost nothing: the first search still finds 59 left.
      for (const path of ['/wp-login.php', '/.env', '/', '/api/openapi.json']) await fetch(`${limited.url}${path}`);
      const first = await calls[0]();
      expect(first.headers.get('ratelimit-remaining')).toBe('59');
      const statuses: number[] = [first.status];
      for (let i = 1; i < 60; i++) statuses.push((await calls[i % calls.length]()).status);
      expect(statuses.filter((s) => s === 429)).toEqual([]);
      expect(statuses.filter((s) => s === 422)).toHaveLength(10);
      for (const call of calls) {
        const refused = await call();
        expect(refused.status).toBe(429);
        const retryAfter = refused.headers.get('retry-after')!;
        expect(retryAfter).toMatch(/^\d+$/);
        expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
        expect(Number(retryAfter)).toBeLessThanOrEqual(60);
        expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', retry_after: Number(retryAfter) });
      }
      // The page, its assets and the OpenAPI description consume nothing and stay reachable.
      for (const path of ['/', '/static/search.js', '/api/openapi.json', '/healthz']) expect((await fetch(`${limited.url}${path}`)).status, path).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('is one budget for all replicas that share the budget store', async () => {
    const budgets = createMemoryBudgets();
    const a = await startTestSearchWeb({ guard: realPublicGuard({ budgets }) });
    const b = await startTestSearchWeb({ guard: realPublicGuard({ budgets }) });
    try {
      for (let i = 0; i < 30; i++) {
        expect((await postJson(`${a.url}/api/social`, {})).status).toBe(200);
        expect((await postJson(`${b.url}/api/news`, {})).status).toBe(200);
      }
      expect((await postJson(`${a.url}/api/social`, {})).status).toBe(429);
      expect((await postJson(`${b.url}/api/news`, {})).status).toBe(429);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
