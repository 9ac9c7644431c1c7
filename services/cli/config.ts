import { resolve } from 'node:path';
import * as z from 'zod';
import { parseRate, type AccessSettings, type RateLimit } from '../access/settings.ts';
import { ConfigError } from './config-error.ts';

export { ConfigError };

// The only reader of process.env and command-line flags (STYLE.md "Configuration"): one zod object
// parses them into a frozen, nested config. Bad settings stop start-up with a message naming each one.

const port = z.coerce.number().int().min(0).max(65535);
const host = z.string().min(1);
const list = z
  .string()
  .optional()
  .transform((value) => (value ? value.split(',').map((item) => item.trim()).filter(Boolean) : []));
const origin = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value.replace(/\/$/, '');
  } catch {
    return false;
  }
}, 'must be an origin like https://app.example.org (scheme, host, optional port; no path)');

const ROLES = ['gateway', 'web', 'admin'] as const;
export type Role = (typeof ROLES)[number];

const rateSpec = z.string().regex(/^\d+\/(s|min|h)$/, 'must look like 10/s, 600/min or 36000/h');

/** Raw settings by name: flags override environment variables. */
const RawConfig = z.object({
  FUNDUS_DATA: z.string().min(1).default('./data'),
  FUNDUS_ROLES: list.pipe(z.array(z.enum(ROLES))),
  FUNDUS_HOST: host.default('127.0.0.1'),
  FUNDUS_PORT: port.default(8082),
  FUNDUS_WEB_HOST: host.optional(),
  FUNDUS_WEB_PORT: port.default(8080),
  FUNDUS_ADMIN_HOST: host.optional(),
  FUNDUS_ADMIN_PORT: port.default(8081),
  FUNDUS_EXTERNAL_URL: origin.optional(),
  FUNDUS_WEB_EXTERNAL_URL: origin.optional(),
  FUNDUS_SEARCH_WORKERS: z.coerce.number().int().min(0).max(64).default(2),
  FUNDUS_GATEWAY_THREADS: z.coerce.number().int().min(0).max(64).optional(),
  FUNDUS_COUNT_BUDGET_MS: z.coerce.number().int().min(1).max(60_000).default(50),
  FUNDUS_INDEX: z.enum(['sqlite', 'typesense']).default('sqlite'),
  TYPESENSE_NODES: list.pipe(z.array(z.url())),
  TYPESENSE_API_KEY: z.string().optional(),
  TYPESENSE_SEARCH_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').optional(),
  FUNDUS_ALLOWED_ORIGINS: list.pipe(z.array(origin)),
  FUNDUS_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  FUNDUS_ANONYMOUS_LIMIT: rateSpec.default('1/s'),
  FUNDUS_PUBLIC_LIMIT: rateSpec.default('60/min'),
  FUNDUS_FALLBACK_SHARE: z.coerce.number().min(0.01).max(1).default(1),
  FUNDUS_INVALID_KEY_LIMIT: rateSpec.default('60/min'),
  FUNDUS_ALLOWED_HOSTS: list,
  FUNDUS_ADMIN_EXTERNAL_URL: origin.optional(),
  FUNDUS_KEY_PEPPER: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be 32 random bytes in base64url (43 characters): openssl rand 32 | basenc --base64url | tr -d =').optional(),
  FUNDUS_KEY_PEPPER_FILE: z.string().min(1).optional(),
  FUNDUS_TRUSTED_PROXIES: list,
  FUNDUS_FEDIVERSE_INSTANCES: list,
  FUNDUS_TOPIC_LLM_URL: z.url().optional(),
  FUNDUS_TOPIC_LLM_MODEL: z.string().min(1).optional(),
  FUNDUS_TOPIC_LLM_API_KEY: z.string().optional(),
  FUNDUS_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  FUNDUS_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).default(0),
  FUNDUS_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type { RateLimit };
export { parseRate };

export interface Config {
  dataDir: string;
  roles: Role[];
  /** Roles were chosen (flag or environment) rather than defaulted to all. */
  rolesExplicit: boolean;
  /** `searchWorkers`: threads that run embedded-index reads for serve (0: on the event loop). */
  index: { kind: 'sqlite'; file: string; searchWorkers: number } | { kind: 'typesense'; nodes: string[]; apiKey: string; searchKey: string | null };
  /** `threads`: serving threads of the gateway on one port (FUNDUS_GATEWAY_THREADS; null: as many as cores, 0: none). */
  gateway: { host: string; port: number; externalUrl: string | null; countBudgetMs: number; threads: number | null };
  web: { host: string; port: number; externalUrl: string | null; fediverseInstances: string[] };
  /** `externalUrl`: where operators reach the panel (an HTTPS one makes its cookies Secure). */
  admin: { host: string; port: number; token: string | null; externalUrl: string | null };
  access: AccessSettings;
  /** Optional AI topic labels from an OpenAI-compatible endpoint; else the offline classifier. */
  topicLlm: { baseUrl: string; model: string; apiKey: string | null } | null;
  shutdownTimeoutMs: number;
  /** After SIGTERM: how long /readyz says 503 while the replica still serves, before it closes. */
  drainMs: number;
  logLevel: z.infer<typeof RawConfig>['FUNDUS_LOG_LEVEL'];
}

/** Flag names (`--port`) that map onto settings, for error messages and for `fundus serve --help`. */
export const FLAG_SETTINGS: Record<string, keyof z.infer<typeof RawConfig>> = {
  data: 'FUNDUS_DATA',
  role: 'FUNDUS_ROLES',
  host: 'FUNDUS_HOST',
  port: 'FUNDUS_PORT',
  'web-host': 'FUNDUS_WEB_HOST',
  'web-port': 'FUNDUS_WEB_PORT',
  'admin-host': 'FUNDUS_ADMIN_HOST',
  'admin-port': 'FUNDUS_ADMIN_PORT',
  'external-url': 'FUNDUS_EXTERNAL_URL',
  'count-budget-ms': 'FUNDUS_COUNT_BUDGET_MS',
  index: 'FUNDUS_INDEX',
  'log-level': 'FUNDUS_LOG_LEVEL',
};

function settingName(key: string): string {
  const flag = Object.entries(FLAG_SETTINGS).find(([, setting]) => setting === key)?.[0];
  return flag ? `--${flag} / ${key}` : key;
}

export function loadConfig(flags: Record<string, string | undefined>, env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const raw: Record<string, string | undefined> = {};
  for (const key of Object.keys(RawConfig.shape)) raw[key] = env[key] === '' ? undefined : env[key];
  for (const [flag, value] of Object.entries(flags)) {
    const key = FLAG_SETTINGS[flag];
    if (key && value !== undefined) raw[key] = value;
  }
  const parsed = RawConfig.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${settingName(String(issue.path[0]))}: ${issue.message}`));
  }
  const s = parsed.data;
  const problems: string[] = [];
  if (s.FUNDUS_INDEX === 'typesense' && s.TYPESENSE_NODES.length === 0) problems.push('TYPESENSE_NODES: required when FUNDUS_INDEX=typesense');
  if (s.FUNDUS_INDEX === 'typesense' && !s.TYPESENSE_API_KEY && !s.TYPESENSE_SEARCH_KEY) {
    problems.push('TYPESENSE_API_KEY: required when FUNDUS_INDEX=typesense (serving replicas may have TYPESENSE_SEARCH_KEY instead)');
  }
  if (s.FUNDUS_TOPIC_LLM_URL && !s.FUNDUS_TOPIC_LLM_MODEL) problems.push('FUNDUS_TOPIC_LLM_MODEL: required when FUNDUS_TOPIC_LLM_URL is set');
  // With Redis the key store is shared by replicas whose data directories differ, and the pepper must
  // not live in Redis beside the hashes (issue 19): it has to be given, the same to every replica.
  if (s.REDIS_URL && !s.FUNDUS_KEY_PEPPER && !s.FUNDUS_KEY_PEPPER_FILE) {
    problems.push('FUNDUS_KEY_PEPPER or FUNDUS_KEY_PEPPER_FILE: required with REDIS_URL (the same secret on every replica; see README "Security")');
  }
  if (problems.length) throw new ConfigError(problems);

  const dataDir = resolve(s.FUNDUS_DATA);
  const config: Config = {
    dataDir,
    roles: s.FUNDUS_ROLES.length ? s.FUNDUS_ROLES : [...ROLES],
    rolesExplicit: s.FUNDUS_ROLES.length > 0,
    index:
      s.FUNDUS_INDEX === 'sqlite'
        ? { kind: 'sqlite', file: resolve(dataDir, 'index.sqlite'), searchWorkers: s.FUNDUS_SEARCH_WORKERS }
        : { kind: 'typesense', nodes: s.TYPESENSE_NODES, apiKey: s.TYPESENSE_API_KEY ?? '', searchKey: s.TYPESENSE_SEARCH_KEY ?? null },
    gateway: {
      host: s.FUNDUS_HOST,
      port: s.FUNDUS_PORT,
      externalUrl: s.FUNDUS_EXTERNAL_URL ?? null,
      countBudgetMs: s.FUNDUS_COUNT_BUDGET_MS,
      threads: s.FUNDUS_GATEWAY_THREADS ?? null,
    },
    web: {
      host: s.FUNDUS_WEB_HOST ?? s.FUNDUS_HOST,
      port: s.FUNDUS_WEB_PORT,
      externalUrl: s.FUNDUS_WEB_EXTERNAL_URL ?? null,
      fediverseInstances: s.FUNDUS_FEDIVERSE_INSTANCES,
    },
    admin: {
      host: s.FUNDUS_ADMIN_HOST ?? '127.0.0.1',
      port: s.FUNDUS_ADMIN_PORT,
      token: s.FUNDUS_ADMIN_TOKEN ?? null,
      externalUrl: s.FUNDUS_ADMIN_EXTERNAL_URL?.replace(/\/$/, '') ?? null,
    },
    access: {
      redisUrl: s.REDIS_URL ?? null,
      allowedOrigins: s.FUNDUS_ALLOWED_ORIGINS.map((o) => o.replace(/\/$/, '')),
      anonymousLimit: parseRate(s.FUNDUS_ANONYMOUS_LIMIT),
      publicLimit: parseRate(s.FUNDUS_PUBLIC_LIMIT),
      fallbackShare: s.FUNDUS_FALLBACK_SHARE,
      trustedProxies: s.FUNDUS_TRUSTED_PROXIES,
      invalidKeyLimit: parseRate(s.FUNDUS_INVALID_KEY_LIMIT),
      allowedHosts: [
        ...new Set(
          [s.FUNDUS_EXTERNAL_URL, s.FUNDUS_WEB_EXTERNAL_URL, s.FUNDUS_ADMIN_EXTERNAL_URL]
            .filter((url): url is string => Boolean(url))
            .map((url) => new URL(url).hostname)
            .concat(s.FUNDUS_ALLOWED_HOSTS)
            // A name the service is bound to (not 0.0.0.0) is one of its names too.
            .concat([s.FUNDUS_HOST, s.FUNDUS_WEB_HOST, s.FUNDUS_ADMIN_HOST].filter((h): h is string => Boolean(h)))
            .map((host) => host.toLowerCase()),
        ),
      ],
      keyPepper: s.FUNDUS_KEY_PEPPER
        ? { kind: 'value', value: s.FUNDUS_KEY_PEPPER }
        : { kind: 'file', file: resolve(s.FUNDUS_KEY_PEPPER_FILE ?? resolve(dataDir, 'access.pepper')) },
    },
    topicLlm: s.FUNDUS_TOPIC_LLM_URL
      ? { baseUrl: s.FUNDUS_TOPIC_LLM_URL, model: s.FUNDUS_TOPIC_LLM_MODEL!, apiKey: s.FUNDUS_TOPIC_LLM_API_KEY ?? null }
      : null,
    shutdownTimeoutMs: s.FUNDUS_SHUTDOWN_TIMEOUT_MS,
    drainMs: s.FUNDUS_DRAIN_MS,
    logLevel: s.FUNDUS_LOG_LEVEL,
  };
  return Object.freeze(config);
}
