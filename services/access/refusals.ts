import { AppError } from '../core/errors.ts';
import type { BudgetOutcome } from './budgets.ts';

// The refusals of the guards (spec section 7), with the headers each one needs.

export const WWW_AUTHENTICATE = 'Bearer realm="fundus", error="invalid_token"';

export function budgetHeaders(outcome: BudgetOutcome): Record<string, string> {
  return {
    'ratelimit-limit': String(outcome.limit),
    'ratelimit-remaining': String(outcome.remaining),
    'ratelimit-reset': String(outcome.resetSeconds),
  };
}

/** 401: CORS headers stay on, so that a page of an allowed origin can read why. */
export function keyInvalid(cors: Record<string, string>): AppError {
  return new AppError('KEY_INVALID', { headers: { ...cors, 'www-authenticate': WWW_AUTHENTICATE } });
}

export function hostForbidden(): AppError {
  return new AppError('HOST_FORBIDDEN');
}

export function originForbidden(): AppError {
  return new AppError('ORIGIN_FORBIDDEN', { headers: { vary: 'Origin' } });
}

/** 429 with the honest Retry-After: the whole seconds until the budget's window frees its points. */
export function rateLimited(outcome: BudgetOutcome, cors: Record<string, string>): AppError {
  return new AppError('RATE_LIMITED', { headers: { ...cors, ...budgetHeaders(outcome), 'retry-after': String(outcome.resetSeconds) } });
}
