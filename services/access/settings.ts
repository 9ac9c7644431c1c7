// What the access layer is configured with: budgets, origins, the shared store. The CLI's config
// (services/cli/config.ts) parses flags and environment into these shapes; access depends only on
// them, never on the CLI above it.

export interface RateLimit {
  points: number;
  durationSeconds: number;
}

/** `10/s`, `600/min` or `36000/h` (already checked by the config schema) as points per duration. */
export function parseRate(spec: string): RateLimit {
  const [points, unit] = spec.split('/');
  return { points: Number(points), durationSeconds: unit === 's' ? 1 : unit === 'min' ? 60 : 3600 };
}

export interface AccessSettings {
  redisUrl: string | null;
  allowedOrigins: string[];
  anonymousLimit: RateLimit;
  publicLimit: RateLimit;
  /** Share of each global budget one replica may grant on its own while Redis is unreachable. */
  fallbackShare: number;
  trustedProxies: string[];
}

/** The parts of the whole configuration that `createAccess` reads. */
export interface AccessConfig {
  dataDir: string;
  access: AccessSettings;
  admin: { token: string | null };
}
