import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseRedisSettings, resolveQueuePrefix } from './redis-settings';

export const ROLE_NAMES = ['api', 'worker', 'delivery', 'scheduler'] as const;
export type Role = (typeof ROLE_NAMES)[number];

/** Upper bound of API_PROCESSES, and of what `auto` resolves to on a machine with more cores. */
export const MAX_API_PROCESSES = 64;

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

const postgresUrl = z
  .string()
  .url()
  .refine((v) => /^postgres(ql)?:\/\//.test(v), 'must be a postgresql:// URL');

const EnvSchema = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  // /healthz, /readyz and /metrics of every role in the process; 0 turns the ops port off.
  OPS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  // The Basic password of /admin/queues (Bull Board over every organization's jobs); unset: no board.
  OPS_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  DATABASE_URL: postgresUrl.default('postgresql://postgres@127.0.0.1:5432/botfleet'),
  // Migrations (and creating the database) go through this one when set: a direct connection to
  // PostgreSQL while DATABASE_URL points at a pooler, as Prisma's directUrl.
  DIRECT_DATABASE_URL: postgresUrl.optional(),
  // Connections in each process's pool (a role holds at most this many once it is ready).
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  // false: every query unnamed, for transaction poolers that cannot keep named prepared statements
  // (PgBouncer before 1.21, Supavisor, RDS Proxy).
  DATABASE_PREPARED_STATEMENTS: booleanFromEnv.default(true),
  // false: pending migrations are left to `npm run db:migrate` (a one-off job); roles wait for them.
  MIGRATE_ON_START: booleanFromEnv.default(true),
  // Unset means: create a missing database outside production only.
  DATABASE_CREATE: booleanFromEnv.optional(),
  // Redis: parsed together into `redis` below (redis-settings.ts), where the rules between them live.
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  REDIS_USERNAME: z.string().optional(),
  REDIS_PASSWORD: z.string().optional(),
  REDIS_SENTINELS: z.string().optional(),
  REDIS_SENTINEL_MASTER: z.string().optional(),
  REDIS_SENTINEL_PASSWORD: z.string().optional(),
  REDIS_CLUSTER_NODES: z.string().optional(),
  REDIS_TLS_CA_FILE: z.string().optional(),
  REDIS_TLS_CERT_FILE: z.string().optional(),
  REDIS_TLS_KEY_FILE: z.string().optional(),
  PUBLIC_BASE_URL: z.string().url().optional(),
  ROLES: commaList
    .pipe(z.array(z.enum(ROLE_NAMES, { message: `each role must be one of ${ROLE_NAMES.join(', ')}` })).min(1))
    .default([...ROLE_NAMES]),
  // API processes sharing PORT on this machine (node:cluster); `auto` is one per core. Applies
  // where the api role runs. Each holds its own database pool and Redis connections, hence the cap.
  API_PROCESSES: z
    .union([z.literal('auto'), z.coerce.number().int().min(1).max(MAX_API_PROCESSES)], {
      message: `must be a whole number from 1 to ${MAX_API_PROCESSES}, or auto`,
    })
    .transform((v) => (v === 'auto' ? Math.min(availableParallelism(), MAX_API_PROCESSES) : v))
    .default(1),
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
  // A comment line on every open event stream this often, so proxies keep idle streams open
  // (docs/live-runs.md); below most proxies' 60 s idle timeout.
  SSE_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).max(300).default(15),
  // Long-lived streams open at once, across every API process (counted in Redis): per
  // organization and per API key; past either, 429. Per API process (unset: derived from its
  // open-file limit, docs/live-runs.md); past it, 503 while every other route keeps answering.
  MAX_STREAMS_PER_ORG: z.coerce.number().int().min(1).max(1_000_000).default(100),
  MAX_STREAMS_PER_KEY: z.coerce.number().int().min(1).max(1_000_000).default(50),
  MAX_STREAMS_PER_PROCESS: z.coerce.number().int().min(1).max(1_000_000).optional(),
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
  // Where artifacts' content goes: `postgres` (in the Artifact row, for one machine) or `s3` (a
  // bucket of any S3-compatible service, for fleets). Rows stay in PostgreSQL either way.
  ARTIFACT_STORE: z.enum(['postgres', 's3'], { message: 'must be postgres or s3' }).default('postgres'),
  S3_BUCKET: z.string().min(3).max(63).optional(),
  // Unset: AWS S3 itself; set for MinIO, Ceph, R2 and the like.
  S3_ENDPOINT: z.string().url().optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  // Both or neither; unset, the AWS SDK's own chain (AWS_* variables, an instance or pod role).
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  // true: https://endpoint/bucket/key, as most self-hosted servers need; false: bucket.endpoint.
  S3_FORCE_PATH_STYLE: booleanFromEnv.default(false),
  // Unset: `botfleet`, or the hash tag `{botfleet}` in cluster mode (resolveQueuePrefix).
  QUEUE_PREFIX: z.string().optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/**
 * Settings no variable sets: the values a role takes when its caller (a test, a tool, the
 * launcher for what it does not derive) gives none. docs/configuration.md lists them and says why
 * the drain times differ per role.
 */
export interface FixedSettings {
  /**
   * How long stop() gives a role's work in flight when its caller passes no drain time. The
   * launcher passes each role its share of SHUTDOWN_GRACE_SECONDS instead, the scheduler at most
   * its value here.
   */
  readonly drainMs: Readonly<Record<Role, number>>;
  /** A pending execution younger than this may still be on its way into Redis; the sweep leaves it. */
  readonly executionPendingGraceMs: number;
  /** Rows one sweep pass (executions, deliveries) looks at. */
  readonly sweepBatchSize: number;
  /** How often the scheduler makes Redis's job schedulers equal to the schedule rows. */
  readonly reconcileIntervalMs: number;
  /** Schedule ticks one scheduler process handles at once. */
  readonly scheduleTickConcurrency: number;
  /** How often the retention pass runs (with EXECUTION_RETENTION_DAYS set; the first at start). */
  readonly retentionIntervalMs: number;
}

const FIXED_SETTINGS: FixedSettings = Object.freeze({
  drainMs: Object.freeze({
    // The launcher gives the api its drain share of SHUTDOWN_GRACE_SECONDS (20 s by default);
    // open requests are bounded by REQUEST_TIMEOUT_SECONDS, and event streams end at once.
    api: 20_000,
    // A run takes up to a bot's timeout (60 s by default): the longest wait, as long as the grace.
    worker: 30_000,
    // An attempt is bounded by WEBHOOK_TIMEOUT_MS (10 s by default): one attempt and its record.
    delivery: 15_000,
    // A tick is one short transaction and idempotent (a cut-off one is redone): the shortest wait.
    scheduler: 10_000,
  }),
  executionPendingGraceMs: 15_000,
  sweepBatchSize: 500,
  reconcileIntervalMs: 30_000,
  scheduleTickConcurrency: 10,
  retentionIntervalMs: 600_000,
});

const ResolvedEnvSchema = EnvSchema.transform((env, ctx) => {
  const redis = parseRedisSettings(env);
  const mode = 'settings' in redis ? redis.settings.mode : env.REDIS_CLUSTER_NODES ? 'cluster' : 'standalone';
  const queuePrefix = resolveQueuePrefix(env.QUEUE_PREFIX, mode);
  const artifactStore = resolveArtifactStore(env);
  const problems = [
    ...('problems' in redis ? redis.problems : []),
    ...(typeof queuePrefix === 'object' ? [queuePrefix] : []),
    ...('problems' in artifactStore ? artifactStore.problems : []),
  ];
  for (const { variable, message } of problems) ctx.addIssue({ code: 'custom', path: [variable], message });
  if (!('settings' in redis) || typeof queuePrefix === 'object' || !('settings' in artifactStore)) return z.NEVER;
  return {
    ...env,
    ALLOW_PRIVATE_NETWORK: env.ALLOW_PRIVATE_NETWORK ?? env.NODE_ENV !== 'production',
    DATABASE_CREATE: env.DATABASE_CREATE ?? env.NODE_ENV !== 'production',
    QUEUE_PREFIX: queuePrefix,
    /** Every REDIS_* variable as one value: what every role's connections are built from. */
    redis: redis.settings,
    /** ARTIFACT_STORE and the S3_* variables as one value: what createArtifactStore (@botfleet/artifacts) takes. */
    artifactStore: artifactStore.settings,
    /** Settings no variable sets, carried here so CONFIG_DEFAULTS holds every default. */
    fixed: FIXED_SETTINGS,
  };
});

/** Where artifacts' content goes, as createArtifactStore (@botfleet/artifacts) takes it. */
export type ArtifactStoreSettings = { kind: 'postgres' } | ({ kind: 's3' } & S3Settings);

export interface S3Settings {
  bucket: string;
  /** Unset: AWS S3 itself. */
  endpoint?: string;
  region: string;
  /** Unset: the AWS SDK's own credential chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  forcePathStyle: boolean;
}

type ArtifactStoreVariables = Pick<
  z.infer<typeof EnvSchema>,
  | 'ARTIFACT_STORE'
  | 'S3_BUCKET'
  | 'S3_ENDPOINT'
  | 'S3_REGION'
  | 'S3_ACCESS_KEY_ID'
  | 'S3_SECRET_ACCESS_KEY'
  | 'S3_FORCE_PATH_STYLE'
>;

/** The rules between ARTIFACT_STORE and the S3_* variables, each broken one named by its variable. */
function resolveArtifactStore(
  env: ArtifactStoreVariables,
): { settings: ArtifactStoreSettings } | { problems: { variable: string; message: string }[] } {
  if (env.ARTIFACT_STORE === 'postgres') return { settings: { kind: 'postgres' } };
  const problems: { variable: string; message: string }[] = [];
  if (!env.S3_BUCKET) problems.push({ variable: 'S3_BUCKET', message: 'is required with ARTIFACT_STORE=s3' });
  // One without the other would silently fall back to the SDK's chain for half a key pair.
  if ((env.S3_ACCESS_KEY_ID === undefined) !== (env.S3_SECRET_ACCESS_KEY === undefined)) {
    const missing = env.S3_ACCESS_KEY_ID === undefined ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY';
    problems.push({ variable: missing, message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together' });
  }
  if (problems.length > 0 || !env.S3_BUCKET) return { problems };
  return {
    settings: {
      kind: 's3',
      bucket: env.S3_BUCKET,
      endpoint: env.S3_ENDPOINT,
      region: env.S3_REGION,
      credentials:
        env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
          ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
          : undefined,
      forcePathStyle: env.S3_FORCE_PATH_STYLE,
    },
  };
}

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
