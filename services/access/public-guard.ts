import type { AccessSettings } from './settings.ts';
import { type Budgets, PUBLIC_BUDGET } from './budgets.ts';
import type { RequestGuard } from './guard.ts';
import { HostPolicy } from './hosts.ts';
import { OriginPolicy } from './origins.ts';
import { budgetHeaders, hostForbidden, originForbidden, rateLimited } from './refusals.ts';

// The guard of the public search endpoints (spec 5 rule 6, spec 8): no keys, the browser origin
// check, and one global budget (60/min by default) shared by every caller of every replica.

export interface PublicGuardOptions {
  config: { access: Pick<AccessSettings, 'allowedOrigins' | 'publicLimit'> & Partial<Pick<AccessSettings, 'allowedHosts'>> };
  budgets: Budgets;
  readyWithoutStore?: boolean;
}

export function createPublicGuard(options: PublicGuardOptions): RequestGuard {
  const hosts = new HostPolicy(options.config.access.allowedHosts ?? []);
  const origins = new OriginPolicy(options.config.access.allowedOrigins, hosts);
  const limit = options.config.access.publicLimit;

  return {
    async admit(request) {
      if (!hosts.allowsRequest(request.headers)) throw hostForbidden();
      const verdict = origins.judge(request.headers);
      if (verdict.kind === 'forbidden') throw originForbidden();
      const cors = origins.responseHeaders(verdict);
      if (!request.consumesBudget) return { principal: { kind: 'anonymous' }, headers: cors };
      const outcome = await options.budgets.consume(PUBLIC_BUDGET, limit);
      if (!outcome.admitted) throw rateLimited(outcome, cors);
      return { principal: { kind: 'anonymous' }, headers: { ...cors, ...budgetHeaders(outcome) } };
    },

    async preflight(request) {
      if (!hosts.allowsRequest(request.headers)) throw hostForbidden();
      const verdict = origins.judge(request.headers);
      if (verdict.kind !== 'allowed') throw originForbidden();
      return origins.preflightHeaders(verdict);
    },

    async ping() {
      return options.readyWithoutStore ? true : options.budgets.ping();
    },

    async close() {},
  };
}
