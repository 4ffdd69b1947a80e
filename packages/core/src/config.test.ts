import { availableParallelism } from 'node:os';
import { CONFIG_DEFAULTS, ConfigError, MAX_API_PROCESSES, parseEnv } from './config';

describe('parseEnv', () => {
  it('applies the documented defaults', () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      PORT: 3000,
      ROLES: ['api', 'worker', 'delivery', 'scheduler'],
      ALLOW_PRIVATE_NETWORK: true,
      MIN_SCHEDULE_INTERVAL_SECONDS: 60,
      WEBHOOK_RETRY_DELAYS_MS: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      DEFAULT_TIMEOUT_SECONDS: 60,
      PROXY_URLS: [],
      REQUEST_TIMEOUT_SECONDS: 30,
      EXECUTION_LOCK_SECONDS: 30,
      STALLED_CHECK_SECONDS: 30,
      SWEEP_INTERVAL_SECONDS: 30,
      OPS_PORT: 9464,
      SHUTDOWN_GRACE_SECONDS: 30,
    });
  });

  it('offers the defaults as CONFIG_DEFAULTS, the values a role started without settings takes', () => {
    expect(CONFIG_DEFAULTS).toEqual(parseEnv({}));
    expect(CONFIG_DEFAULTS).toMatchObject({ BROWSER_RECYCLE_AFTER_RUNS: 500, EXECUTION_MAX_INFRA_RETRIES: 3 });
  });

  it('carries the settings no variable sets, each role’s drain time among them, whatever the environment', () => {
    const fixed = {
      drainMs: { api: 20_000, worker: 30_000, delivery: 15_000, scheduler: 10_000 },
      executionPendingGraceMs: 15_000,
      sweepBatchSize: 500,
      reconcileIntervalMs: 30_000,
      scheduleTickConcurrency: 10,
      retentionIntervalMs: 600_000,
    };
    expect(CONFIG_DEFAULTS.fixed).toEqual(fixed);
    expect(parseEnv({ SHUTDOWN_GRACE_SECONDS: '90', SWEEP_INTERVAL_SECONDS: '5' }).fixed).toEqual(fixed);
    expect(Object.isFrozen(CONFIG_DEFAULTS.fixed.drainMs)).toBe(true);
  });

  it('caps pending runs per organization at 10,000 and leaves the running cap and RSS check off by default', () => {
    const env = parseEnv({});
    expect(env.MAX_PENDING_EXECUTIONS_PER_ORG).toBe(10_000);
    expect(env.MAX_RUNNING_EXECUTIONS_PER_ORG).toBeUndefined();
    expect(env.BROWSER_RECYCLE_AFTER_RUNS).toBe(500);
    expect(env.BROWSER_MAX_RSS_MB).toBeUndefined();
    expect(
      parseEnv({
        MAX_PENDING_EXECUTIONS_PER_ORG: '50',
        MAX_RUNNING_EXECUTIONS_PER_ORG: '4',
        BROWSER_RECYCLE_AFTER_RUNS: '100',
        BROWSER_MAX_RSS_MB: '1024',
      }),
    ).toMatchObject({
      MAX_PENDING_EXECUTIONS_PER_ORG: 50,
      MAX_RUNNING_EXECUTIONS_PER_ORG: 4,
      BROWSER_RECYCLE_AFTER_RUNS: 100,
      BROWSER_MAX_RSS_MB: 1024,
    });
    for (const [name, bad] of [
      ['MAX_PENDING_EXECUTIONS_PER_ORG', '0'],
      ['MAX_RUNNING_EXECUTIONS_PER_ORG', '-1'],
      ['BROWSER_RECYCLE_AFTER_RUNS', '1.5'],
      ['BROWSER_MAX_RSS_MB', '10'],
    ] as const) {
      expect(() => parseEnv({ [name]: bad })).toThrow(new RegExp(`${name}:`));
    }
  });

  it('caps open streams at 100 per organization and 50 per key, and derives the process cap unless set', () => {
    expect(parseEnv({})).toMatchObject({ MAX_STREAMS_PER_ORG: 100, MAX_STREAMS_PER_KEY: 50 });
    expect(parseEnv({}).MAX_STREAMS_PER_PROCESS).toBeUndefined();
    expect(parseEnv({ MAX_STREAMS_PER_PROCESS: '' }).MAX_STREAMS_PER_PROCESS).toBeUndefined();
    expect(
      parseEnv({ MAX_STREAMS_PER_ORG: '500', MAX_STREAMS_PER_KEY: '20', MAX_STREAMS_PER_PROCESS: '2000' }),
    ).toMatchObject({ MAX_STREAMS_PER_ORG: 500, MAX_STREAMS_PER_KEY: 20, MAX_STREAMS_PER_PROCESS: 2000 });
    for (const name of ['MAX_STREAMS_PER_ORG', 'MAX_STREAMS_PER_KEY', 'MAX_STREAMS_PER_PROCESS']) {
      for (const bad of ['0', '-3', '2.5', 'many']) {
        expect(() => parseEnv({ [name]: bad })).toThrow(new RegExp(`${name}:`));
      }
    }
  });

  it('bounds outputs at 1 MiB per step and 16 MiB per run, and retries a dead worker 3 times, by default', () => {
    expect(parseEnv({})).toMatchObject({
      MAX_STEP_OUTPUT_BYTES: 1024 * 1024,
      MAX_EXECUTION_OUTPUT_BYTES: 16 * 1024 * 1024,
      EXECUTION_MAX_INFRA_RETRIES: 3,
    });
    expect(
      parseEnv({ MAX_STEP_OUTPUT_BYTES: '2048', MAX_EXECUTION_OUTPUT_BYTES: '4096', EXECUTION_MAX_INFRA_RETRIES: '0' }),
    ).toMatchObject({ MAX_STEP_OUTPUT_BYTES: 2048, MAX_EXECUTION_OUTPUT_BYTES: 4096, EXECUTION_MAX_INFRA_RETRIES: 0 });
    for (const [name, bad] of [
      ['MAX_STEP_OUTPUT_BYTES', '100'],
      ['MAX_EXECUTION_OUTPUT_BYTES', 'lots'],
      ['EXECUTION_MAX_INFRA_RETRIES', '-1'],
      ['EXECUTION_MAX_INFRA_RETRIES', '1.5'],
    ] as const) {
      expect(() => parseEnv({ [name]: bad })).toThrow(new RegExp(`${name}:`));
    }
  });

  it('keeps every execution unless EXECUTION_RETENTION_DAYS is a positive number of days', () => {
    expect(parseEnv({}).EXECUTION_RETENTION_DAYS).toBeUndefined();
    expect(parseEnv({ EXECUTION_RETENTION_DAYS: '' }).EXECUTION_RETENTION_DAYS).toBeUndefined();
    expect(parseEnv({ EXECUTION_RETENTION_DAYS: '30' }).EXECUTION_RETENTION_DAYS).toBe(30);
    for (const bad of ['0', '-1', '1.5', '30d', '100000']) {
      expect(() => parseEnv({ EXECUTION_RETENTION_DAYS: bad })).toThrow(/EXECUTION_RETENTION_DAYS:/);
    }
  });

  it('keeps artifacts in PostgreSQL by default, and in S3 with a bucket and both halves of a key pair', () => {
    expect(parseEnv({}).artifactStore).toEqual({ kind: 'postgres' });
    expect(
      parseEnv({
        ARTIFACT_STORE: 's3',
        S3_BUCKET: 'runs',
        S3_ENDPOINT: 'http://minio:9000',
        S3_ACCESS_KEY_ID: 'id',
        S3_SECRET_ACCESS_KEY: 'the-secret',
        S3_FORCE_PATH_STYLE: 'true',
      }).artifactStore,
    ).toEqual({
      kind: 's3',
      bucket: 'runs',
      endpoint: 'http://minio:9000',
      region: 'us-east-1',
      credentials: { accessKeyId: 'id', secretAccessKey: 'the-secret' },
      forcePathStyle: true,
    });
    // No key pair: the AWS SDK's own chain (an instance or pod role).
    expect(parseEnv({ ARTIFACT_STORE: 's3', S3_BUCKET: 'runs' }).artifactStore).toMatchObject({
      credentials: undefined,
      forcePathStyle: false,
    });
    expect(() => parseEnv({ ARTIFACT_STORE: 's3' })).toThrow('S3_BUCKET: is required with ARTIFACT_STORE=s3');
    expect(() => parseEnv({ ARTIFACT_STORE: 's3', S3_BUCKET: 'runs', S3_ACCESS_KEY_ID: 'id' })).toThrow(
      'S3_SECRET_ACCESS_KEY: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together',
    );
    expect(() => parseEnv({ ARTIFACT_STORE: 'disk' })).toThrow('ARTIFACT_STORE: must be postgres or s3');
  });

  it('leaves the queues board off unless OPS_ADMIN_TOKEN is a long enough secret', () => {
    expect(parseEnv({}).OPS_ADMIN_TOKEN).toBeUndefined();
    expect(parseEnv({ OPS_ADMIN_TOKEN: '' }).OPS_ADMIN_TOKEN).toBeUndefined();
    expect(parseEnv({ OPS_ADMIN_TOKEN: 'a'.repeat(16) }).OPS_ADMIN_TOKEN).toBe('a'.repeat(16));
    expect(() => parseEnv({ OPS_ADMIN_TOKEN: 'short' })).toThrow(/OPS_ADMIN_TOKEN: must be at least 16 characters/);
  });

  it('runs one API process by default, `auto` one per core (capped), and refuses anything else', () => {
    expect(parseEnv({}).API_PROCESSES).toBe(1);
    expect(parseEnv({ API_PROCESSES: '4' }).API_PROCESSES).toBe(4);
    expect(parseEnv({ API_PROCESSES: 'auto' }).API_PROCESSES).toBe(Math.min(availableParallelism(), MAX_API_PROCESSES));
    for (const bad of ['0', '1.5', 'two', String(MAX_API_PROCESSES + 1)]) {
      expect(() => parseEnv({ API_PROCESSES: bad })).toThrow(/API_PROCESSES: /);
    }
  });

  it('reads the PostgreSQL settings, creating a missing database by default outside production only', () => {
    expect(parseEnv({})).toMatchObject({
      DATABASE_POOL_SIZE: 10,
      DATABASE_PREPARED_STATEMENTS: true,
      MIGRATE_ON_START: true,
      DATABASE_CREATE: true,
    });
    expect(parseEnv({}).DIRECT_DATABASE_URL).toBeUndefined();
    expect(parseEnv({ NODE_ENV: 'production' }).DATABASE_CREATE).toBe(false);
    expect(parseEnv({ NODE_ENV: 'production', DATABASE_CREATE: 'true' }).DATABASE_CREATE).toBe(true);
    expect(
      parseEnv({
        DATABASE_POOL_SIZE: '3',
        DATABASE_PREPARED_STATEMENTS: 'false',
        MIGRATE_ON_START: 'false',
        DIRECT_DATABASE_URL: 'postgresql://u:p@db:5432/botfleet',
      }),
    ).toMatchObject({
      DATABASE_POOL_SIZE: 3,
      DATABASE_PREPARED_STATEMENTS: false,
      MIGRATE_ON_START: false,
      DIRECT_DATABASE_URL: 'postgresql://u:p@db:5432/botfleet',
    });
  });

  it('closes the private network in production unless told otherwise', () => {
    expect(parseEnv({ NODE_ENV: 'production' }).ALLOW_PRIVATE_NETWORK).toBe(false);
    expect(parseEnv({ NODE_ENV: 'production', ALLOW_PRIVATE_NETWORK: 'true' }).ALLOW_PRIVATE_NETWORK).toBe(true);
    expect(parseEnv({ NODE_ENV: 'development' }).ALLOW_PRIVATE_NETWORK).toBe(true);
    expect(parseEnv({ NODE_ENV: 'test', ALLOW_PRIVATE_NETWORK: 'false' }).ALLOW_PRIVATE_NETWORK).toBe(false);
  });

  it('parses lists, booleans and numbers', () => {
    const env = parseEnv({
      ROLES: 'api, worker',
      PROXY_URLS: 'http://p1:8080,http://user:pw@p2:3128',
      ALLOW_PRIVATE_NETWORK: 'false',
      WEBHOOK_RETRY_DELAYS_MS: '10,20',
      WORKER_CONCURRENCY: '4',
      SECRETS_KEY: 'a'.repeat(64),
    });
    expect(env.ROLES).toEqual(['api', 'worker']);
    expect(env.PROXY_URLS).toEqual(['http://p1:8080', 'http://user:pw@p2:3128']);
    expect(env.ALLOW_PRIVATE_NETWORK).toBe(false);
    expect(env.WEBHOOK_RETRY_DELAYS_MS).toEqual([10, 20]);
    expect(env.WORKER_CONCURRENCY).toBe(4);
  });

  it.each([
    ['PORT', 'abc'],
    ['ROLES', 'api,web'],
    ['DATABASE_URL', 'not a url'],
    ['SECRETS_KEY', 'too-short'],
    ['ALLOW_PRIVATE_NETWORK', 'maybe'],
    ['WEBHOOK_RETRY_DELAYS_MS', '5s,10s'],
    ['WORKER_CONCURRENCY', '0'],
    ['REQUEST_TIMEOUT_SECONDS', '0'],
    ['EXECUTION_LOCK_SECONDS', '1'],
    ['EXECUTION_RETENTION_DAYS', '0'],
    ['DATABASE_POOL_SIZE', '0'],
    ['DATABASE_POOL_SIZE', 'ten'],
    ['DATABASE_PREPARED_STATEMENTS', 'off'],
    ['MIGRATE_ON_START', 'maybe'],
    ['DATABASE_CREATE', 'sometimes'],
    ['DIRECT_DATABASE_URL', 'db:5432'],
    ['DATABASE_URL', 'mysql://db/botfleet'],
  ])('names %s when its value is bad', (name, value) => {
    expect(() => parseEnv({ [name]: value })).toThrow(ConfigError);
    try {
      parseEnv({ [name]: value });
    } catch (err) {
      expect((err as ConfigError).message).toContain(`${name}:`);
    }
  });
});
