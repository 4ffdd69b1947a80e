import type { ApiSettings } from '@botfleet/api';
import { randomBytes } from 'node:crypto';
/** Everything the bench reads from its environment (documented in scripts/bench.mjs). */
export interface BenchConfig {
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  chromiumPath: string | undefined;
  logLevel: string;
  /** Executions measured in the e2e run, and runs in the bare loop. */
  executions: number;
  /** Worker concurrency, and the bare loop's. */
  concurrency: number;
  /** Rounds the measurements are interleaved in (bare, runner, e2e, bare, ...). */
  rounds: number;
  /** Unmeasured runs of each kind before measuring (browser, JIT, pools, prepared statements). */
  warmupRuns: number;
  webhooks: number;
  webhookConcurrency: number;
  apiSeconds: number;
  /** autocannon connections for the API load. */
  apiConnections: number;
  /** `--quick`: smaller defaults everywhere, so a whole run stays under two minutes. */
  quick: boolean;
  /** Executions seeded for the small and the large organization of the list-latency figure. */
  listSmallRows: number;
  listLargeRows: number;
  /** Worker runs (warm-up and measured runs included) after which its RSS is read. */
  rssLowRuns: number;
  rssHighRuns: number;
}

/** Databases that belong to `npm start` and `npm test`: the bench writes and deletes rows, so never these. */
const FORBIDDEN_DATABASES = new Set(['botfleet', 'botfleet_test']);

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer (got ${JSON.stringify(raw)})`);
  return value;
}

export function loadBenchConfig(argv: readonly string[] = process.argv.slice(2)): BenchConfig {
  const unknown = argv.filter((arg) => arg !== '--quick');
  if (unknown.length > 0) throw new Error(`unknown bench argument(s): ${unknown.join(' ')} (only --quick)`);
  const quick = argv.includes('--quick');
  // Quick defaults: one round of a few runs, short API windows, 100k rows instead of 1M. A
  // BENCH_* variable still wins over either default.
  const pick = (full: number, short: number) => (quick ? short : full);
  const databaseUrl = process.env.DATABASE_URL;
  const queuePrefix = process.env.QUEUE_PREFIX;
  if (!databaseUrl || !queuePrefix)
    throw new Error('DATABASE_URL and QUEUE_PREFIX must be set: run the bench with `npm run bench`');
  const databaseName = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ''));
  if (FORBIDDEN_DATABASES.has(databaseName)) {
    throw new Error(`Refusing to bench against ${databaseName}: it belongs to npm start or npm test`);
  }
  return {
    databaseUrl,
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    queuePrefix,
    chromiumPath: process.env.CHROMIUM_PATH,
    logLevel: process.env.LOG_LEVEL ?? 'silent',
    executions: positiveInt('BENCH_EXECUTIONS', pick(60, 12)),
    // The deployment default (WORKER_CONCURRENCY, 2): what a fresh install actually runs with.
    concurrency: positiveInt('BENCH_CONCURRENCY', positiveInt('WORKER_CONCURRENCY', 2)),
    // Interleaved by default: on a shared machine the load average was seen to go from 2 to 9
    // within one run, which made a single bare-then-e2e sequence compare two different machines.
    rounds: positiveInt('BENCH_ROUNDS', pick(3, 1)),
    warmupRuns: positiveInt('BENCH_WARMUP', pick(2, 1)),
    webhooks: positiveInt('BENCH_WEBHOOKS', pick(300, 100)),
    webhookConcurrency: positiveInt('DELIVERY_CONCURRENCY', 16),
    apiSeconds: positiveInt('BENCH_API_SECONDS', pick(5, 2)),
    apiConnections: positiveInt('BENCH_API_CONNECTIONS', 10),
    quick,
    listSmallRows: 1_000,
    listLargeRows: pick(1_000_000, 100_000),
    rssLowRuns: pick(100, 20),
    rssHighRuns: pick(1_000, 200),
  };
}

/** The API's settings wherever the bench starts one in-process: capacity is measured, so no per-key rate limit. */
export function benchApiSettings(): ApiSettings {
  return {
    bodyLimitBytes: 1024 * 1024,
    requestTimeoutMs: 30_000,
    publicBaseUrl: 'http://127.0.0.1',
    minScheduleIntervalSeconds: 60,
    screenshotUrlTtlSeconds: 3600,
    urlSigningKey: randomBytes(32),
    // Capacity is measured, not the per-key limit (which would answer 429 within a second).
    rateLimitPerMinute: 0,
  };
}
