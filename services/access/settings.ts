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
  /** Global budget of requests with an invalid or revoked key (beyond it: 429 instead of 401). */
  invalidKeyLimit: RateLimit;
  /** Host names requests may be addressed to (DNS rebinding): the external URLs' hosts plus FUNDUS_ALLOWED_HOSTS; loopback and IP literals always. */
  allowedHosts: string[];
  /** The HMAC key of stored key hashes, never kept in the key store: the value, or a file holding it (default `<data>/access.pepper`). */
  keyPepper: { kind: 'value'; value: string } | { kind: 'file'; file: string };
}

/** The parts of the whole configuration that `createAccess` reads. */
export interface AccessConfig {
  dataDir: string;
  access: AccessSettings;
  admin: { token: string | null };
}
