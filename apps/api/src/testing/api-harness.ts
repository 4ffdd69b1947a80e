import { createLogger, createSecretBox, newId, type Permission } from '@botfleet/core';
import { createApiKey, createPrismaClient, ensureOrganization, type PrismaClient } from '@botfleet/db';
import { createQueues, createRedisConnection, type Queues } from '@botfleet/queue';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../app';
import type { ApiDeps, ApiSettings } from '../deps';
import { startApi } from '../start-api';

export interface TestOrg {
  id: string;
  keys: Record<Permission, string>;
  /** `Authorization` header for a permission level. */
  auth(permission?: Permission): { Authorization: string };
}

export interface ApiHarness {
  app: Express;
  deps: ApiDeps;
  db: PrismaClient;
  queues: Queues;
  newOrg(): Promise<TestOrg>;
  /** Creates a bot through the API (write key) and returns its id. */
  newBot(org: TestOrg, fields?: Record<string, unknown>): Promise<string>;
  /** The API on a real HTTP server (port 0), as startApi runs it; stopped by close(). */
  listen(overrides?: Partial<ApiSettings>): Promise<{ port: number }>;
  close(): Promise<void>;
}

/**
 * A real API on the test database (`npm test` points DATABASE_URL at it) and real Redis, with
 * a queue prefix of its own so test files never see each other's jobs.
 */
export async function createApiHarness(
  overrides: Partial<ApiSettings> = {},
  options: { redisUrl?: string; queuePrefix?: string } = {},
): Promise<ApiHarness> {
  const db = createPrismaClient(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/botfleet_test', { poolSize: 4 });
  const redis = createRedisConnection(options.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'producer');
  redis.on('error', () => undefined);
  const queues = createQueues(redis, options.queuePrefix ?? `test-${randomBytes(4).toString('hex')}`);
  const deps: ApiDeps = {
    db,
    redis,
    queues,
    logger: createLogger({ level: 'silent' }),
    secretBox: createSecretBox(randomBytes(32)),
    settings: {
      bodyLimitBytes: 1024 * 1024,
      requestTimeoutMs: 30_000,
      publicBaseUrl: 'http://botfleet.test',
      minScheduleIntervalSeconds: 60,
      screenshotUrlTtlSeconds: 3600,
      urlSigningKey: randomBytes(32),
      rateLimitPerMinute: 0,
      ...overrides,
    },
  };
  const app = createApp(deps);
  const servers: { stop(): Promise<void> }[] = [];
  return {
    app,
    deps,
    db,
    queues,
    async newOrg() {
      const org = await ensureOrganization(db, newId('org').replace('_', '-'));
      const keys = {} as Record<Permission, string>;
      for (const permission of ['read', 'write', 'admin'] as const) {
        keys[permission] = (await createApiKey(db, { organizationId: org.id, name: permission, permission })).key;
      }
      return { id: org.id, keys, auth: (permission = 'admin') => ({ Authorization: `Bearer ${keys[permission]}` }) };
    },
    async newBot(org, fields = {}) {
      const res = await request(app).post('/api/v1/bots').set(org.auth('write')).send({ name: 'test bot', targetUrl: 'https://a.example', ...fields });
      if (res.status !== 201) throw new Error(`creating a bot failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.id as string;
    },
    async listen(overrides = {}) {
      const api = await startApi({
        db,
        redisUrl: options.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        queuePrefix: queues.prefix,
        logger: deps.logger,
        secretBox: deps.secretBox,
        port: 0,
        settings: { ...deps.settings, ...overrides },
      });
      servers.push(api);
      return { port: api.port };
    },
    async close() {
      await Promise.all(servers.map((server) => server.stop()));
      await queues.close();
      redis.disconnect();
      await db.$disconnect();
    },
  };
}

/**
 * Registers beforeAll/afterAll for a harness and one organization in a test file, handing them
 * to `use` once they exist.
 */
export function useApiHarness(use: (harness: ApiHarness, org: TestOrg) => void, overrides: Partial<ApiSettings> = {}): void {
  let harness: ApiHarness | undefined;
  beforeAll(async () => {
    harness = await createApiHarness(overrides);
    use(harness, await harness.newOrg());
  });
  afterAll(() => harness?.close());
}
