import type { RequestGuard } from '../../services/access/guard.ts';

/**
 * Stand-in for access control, for tests of the API's own behaviour (validation, search, OpenAPI):
 * admits every request. Access control itself is tested against the real guard in test/api/access*.
 */
export function admitAllGuardForTests(): RequestGuard {
  return {
    async admit() {
      return { principal: { kind: 'anonymous' }, headers: {} };
    },
    async preflight() {
      return {};
    },
    async ping() {
      return true;
    },
    async close() {},
  };
}
