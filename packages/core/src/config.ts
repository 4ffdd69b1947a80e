import { z } from 'zod';

export const ROLE_NAMES = ['api', 'worker', 'delivery', 'scheduler'] as const;
export type Role = (typeof ROLE_NAMES)[number];

const DEFAULT_RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const commaList = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

const EnvSchema = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  // /healthz, /readyz and /metrics of every role in the process; 0 turns the ops port off.
  OPS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  // The Basic password of /admin/queues (Bull Board over every organization's jobs); unset: no board.
  OPS_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/botfleet'),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  PUBLIC_BASE_URL: z.string().url().optional(),
  ROLES: commaList
    .pipe(z.array(z.enum(ROLE_NAMES, { message: `each role must be one of ${ROLE_NAMES.join(', ')}` })).min(1))
    .default([...ROLE_NAMES]),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  CHROMIUM_PATH: z.string().min(1).optional(),
  PROXY_URLS: commaList.pipe(z.array(z.string().url())).default([]),
  SECRETS_KEY: z
    .string()
    .refine((v) => decodeKey(v) !== null, 'must be 32 bytes as 64 hex characters or base64')
    .optional(),
  // Unset means: closed in production, open elsewhere (local receivers and test pages).
  ALLOW_PRIVATE_NETWORK: booleanFromEnv.optional(),
  MIN_SCHEDULE_INTERVAL_SECONDS: z.coerce.number().int().min(1).default(60),
  WEBHOOK_RETRY_DELAYS_MS: commaList
    .pipe(z.array(z.string().regex(/^\d+$/, 'must be whole milliseconds').transform(Number)))
    .default(DEFAULT_RETRY_DELAYS_MS),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  // A webhook whose deliveries have all failed for this many days is disabled until a PUT.
  WEBHOOK_DISABLE_AFTER_DAYS: z.coerce.number().int().min(1).max(3650).default(5),
  DEFAULT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  EXECUTION_LOCK_SECONDS: z.coerce.number().int().min(5).max(3600).default(30),
  STALLED_CHECK_SECONDS: z.coerce.number().int().min(5).max(3600).default(30),
  SWEEP_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  // The whole SIGTERM drain fits in this; orchestrators should allow a little more.
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  // Unset keeps every execution. The cap keeps the cutoff a valid date.
  EXECUTION_RETENTION_DAYS: z.coerce
    .number({ message: 'must be a whole number of days' })
    .int('must be a whole number of days')
    .min(1, 'must be at least 1 day (leave it unset to keep everything)')
    .max(36_500)
    .optional(),
  // Requests per minute per API key, and per organization (all its keys together) unless the
  // operator set the organization a rate of its own (`orgs limits`); 0 turns the default off.
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(6000),
  // Back-pressure: a trigger or batch that would leave an organization with more pending runs
  // than this answers 429; the running cap (unset: none) holds across the whole fleet.
  MAX_PENDING_EXECUTIONS_PER_ORG: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
  MAX_RUNNING_EXECUTIONS_PER_ORG: z.coerce.number().int().min(1).max(100_000).optional(),
  // Unrevoked API keys one organization may hold; creating one more answers 409 limit_reached.
  MAX_API_KEYS_PER_ORG: z.coerce.number().int().min(1).max(100_000).default(100),
  // A worker replaces its Chromium between runs after this many runs, or once the browser's
  // memory (resident set of its processes) passes BROWSER_MAX_RSS_MB (unset: not checked).
  BROWSER_RECYCLE_AFTER_RUNS: z.coerce.number().int().min(1).max(1_000_000).default(500),
  BROWSER_MAX_RSS_MB: z.coerce.number().int().min(64).max(1_000_000).optional(),
  // Output bounds of one run (contract part 3, section 1): one step's JSON-encoded output, and a
  // run's step outputs, extracted data and logs together. Past either the step fails with
  // output_too_large; nothing over the bound is stored.
  MAX_STEP_OUTPUT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(1024 * 1024),
  MAX_EXECUTION_OUTPUT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(4 * 1024 * 1024 * 1024)
    .default(16 * 1024 * 1024),
  // A run whose worker died (or whose browser crashed) is tried again as a new attempt this many
  // times before it fails with infrastructure_failure; the bot's own retry policy counts apart.
  EXECUTION_MAX_INFRA_RETRIES: z.coerce.number().int().min(0).max(100).default(3),
  SCREENSHOT_URL_TTL_SECONDS: z.coerce.number().int().min(1).default(3600),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default('botfleet'),
  DATA_DIR: z.string().min(1).default('.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

const ResolvedEnvSchema = EnvSchema.transform((env) => ({
  ...env,
  ALLOW_PRIVATE_NETWORK: env.ALLOW_PRIVATE_NETWORK ?? env.NODE_ENV !== 'production',
}));

export type Env = z.infer<typeof ResolvedEnvSchema>;

/** 32-byte key from 64 hex chars or base64; null when it is neither. */
export function decodeKey(value: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  const b64 = Buffer.from(value, 'base64');
  return b64.length === 32 ? b64 : null;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment once; a bad value throws a ConfigError naming each variable. */
export function parseEnv(env: Record<string, string | undefined>): Env {
  // Empty strings mean "unset", as in most .env tooling.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = ResolvedEnvSchema.safeParse(present);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => `${String(i.path[0] ?? '?')}: ${i.message}`));
  }
  return result.data;
}

/**
 * Every setting as it is when the environment leaves it unset: the one home of the defaults. A
 * role or package started without a value (tests, tools) takes it from here, never from a literal
 * of its own, so changing a default here changes it everywhere.
 */
export const CONFIG_DEFAULTS: Env = parseEnv({});
