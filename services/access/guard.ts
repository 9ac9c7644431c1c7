import type { IncomingHttpHeaders } from 'node:http';

// The port between HTTP surfaces and access control (spec sections 5, 7, 8). Every REST and MCP
// request passes `admit` before its body is parsed: key (401) -> origin (403) -> budget (429);
// validation (422) comes after, so admitted malformed calls still consume budget (spec 7 rule 2).

export interface GuardRequest {
  method: string;
  headers: IncomingHttpHeaders;
  /** False for /openapi.json, /docs and health checks: they consume no budget (spec 8 rule 2). */
  consumesBudget: boolean;
  /** The connection (socket) it came on: a key verified on it is checked again without hashing it. */
  connection?: object;
}

export type Principal = { kind: 'anonymous' } | { kind: 'key'; keyId: string; name: string };

export interface GuardDecision {
  principal: Principal;
  /** Headers to add to the response (CORS for an allowed origin, rate-limit information). */
  headers: Record<string, string>;
}

export interface RequestGuard {
  /** Admits the request or throws an AppError (KEY_INVALID, ORIGIN_FORBIDDEN, RATE_LIMITED with Retry-After). */
  admit(request: GuardRequest): Promise<GuardDecision>;
  /** Answers a CORS preflight: the headers of a 204, or throws ORIGIN_FORBIDDEN. */
  preflight(request: Omit<GuardRequest, 'consumesBudget'>): Promise<Record<string, string>>;
  /** Are the guard's stores usable (readiness)? */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
