import type { RateLimit } from './settings.ts';

// Request limits of project keys (spec 5 rule 2): points per duration, written `N/s`, `N/min`,
// `N/h`, or `unlimited` (for benchmarks and trusted back ends; such keys consume no budget).

export type KeyLimit = RateLimit | 'unlimited';

const LIMIT_PATTERN = /^([1-9]\d{0,8})\/(s|min|h)$/;
const UNIT_SECONDS: Record<string, number> = { s: 1, min: 60, h: 3600 };

export const LIMIT_HINT = 'a limit like 10/s, 600/min, 36000/h or unlimited';

export function parseKeyLimit(spec: string): KeyLimit | null {
  const text = spec.trim();
  if (text === 'unlimited') return 'unlimited';
  const match = LIMIT_PATTERN.exec(text);
  return match ? { points: Number(match[1]), durationSeconds: UNIT_SECONDS[match[2]] } : null;
}

export function formatKeyLimit(limit: KeyLimit): string {
  if (limit === 'unlimited') return 'unlimited';
  const unit = limit.durationSeconds === 1 ? 's' : limit.durationSeconds === 60 ? 'min' : limit.durationSeconds === 3600 ? 'h' : null;
  return unit ? `${limit.points}/${unit}` : `${limit.points}/${limit.durationSeconds}s`;
}
