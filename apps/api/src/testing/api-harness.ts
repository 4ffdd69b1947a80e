import { createSecretBox, redisSettingsFromUrl, type Permission, type RedisSettings } from '@botfleet/core';
import type { ArtifactStore } from '@botfleet/artifacts';
import { createApiKey, createPrismaClient, type PrismaClient } from '@botfleet/db';
import { createTestOrganization, testDatabaseUrl } from '@botfleet/db/testing';
import { createLogger } from '@botfleet/io';
import { createOps } from '@botfleet/ops';
import { createQueues, closeRedis, createRedisConnection, type Queues } from '@botfleet/queue';
import { testRedisUrl, uniqueQueuePrefix } from '@botfleet/testkit';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../app';
import type { ApiDeps, ApiSettings } from '../deps';
import { streamSlotLimitsOf } from '../live/process-stream-cap';
import { startLiveEvents } from '../live/start-live-events';
import { createStreamSlots } from '../live/stream-slots';
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
  /** A new organization with a read, a write and an admin key. */
  newOrg(): Promise<TestOrg>;
  /**
   * Creates a bot through the API (write key), as a client would, then puts its manifest and
   * steps when given (admin key: a profile or a credential may only be attached by one); returns
   * its id. Fails loudly when the API refuses any of them.
   */
  newBot(org: TestOrg, fields?: Record<string, unknown>, setup?: BotSetup): Promise<string>;
  /** The API on a real HTTP server (port 0), as startApi runs it; stopped by close(). */
  listen(overrides?: Partial<ApiSettings>): Promise<{ port: number }>;
  close(): Promise<void>;
}

export interface BotSetup {
  /** Body of PUT /bots/:botId/manifest. */
  manifest?: object;
  /** Steps for PUT /bots/:botId/steps. */
  steps?: object[];
}

export interface ApiHarnessOptions {
  /** Defaults to the shared test database (DATABASE_URL). */
  databaseUrl?: string;
  /** Defaults to the shared test Redis (REDIS_URL). */
  redis?: RedisSettings;
  /** Defaults to a prefix of this harness's own. */
  queuePrefix?: string;
  /** Where artifacts' content lies; PostgreSQL when omitted. The caller closes it. */
  artifactStore?: ArtifactStore;
}

/**
 * A real API on the test database (`npm test` points DATABASE_URL at it) and real Redis, with
 * a queue prefix of its own so test files never see each other's jobs.
 */
export async function createApiHarness(
  overrides: Partial<ApiSettings> = {},
  options: ApiHarnessOptions = {},
): Promise<ApiHarness> {
  const db = createPrismaClient(options.databaseUrl ?? testDatabaseUrl(), { poolSize: 4 });
  const redisSettings = options.redis ?? redisSettingsFromUrl(testRedisUrl());
  const redis = createRedisConnection(redisSettings, 'producer');
  redis.on('error', () => undefined);
  const queues = createQueues(redis, options.queuePrefix ?? uniqueQueuePrefix());
  const logger = createLogger({ level: 'silent' });
  const settings: ApiSettings = {
    bodyLimitBytes: 1024 * 1024,
    requestTimeoutMs: 30_000,
    publicBaseUrl: 'http://botfleet.test',
    minScheduleIntervalSeconds: 60,
    screenshotUrlTtlSeconds: 3600,
    urlSigningKey: randomBytes(32),
    rateLimitPerMinute: 0,
    // Test receivers listen on loopback.
    allowPrivateNetwork: true,
    webhookTimeoutMs: 2_000,
    ...overrides,
  };
  // The live fan-out hears the queue prefix's notices, as the API process's does.
  const live = startLiveEvents({ db, logger, settings, redis: redisSettings, queuePrefix: queues.prefix });
  const streamSlots = createStreamSlots({ redis, prefix: queues.prefix, limits: streamSlotLimitsOf(settings), logger });
  const deps: ApiDeps = {
    db,
    redis,
    queues,
    liveEvents: live.live,
    streamSlots,
    logger,
    secretBox: createSecretBox(randomBytes(32)),
    artifactStore: options.artifactStore,
    // The process's metrics and readiness, as the launcher hands them over: tests serve them with
    // startOpsServer, the way OPS_PORT does (the API's own port never serves /metrics).
    ops: createOps(),
    settings,
  };
  const app = createApp(deps);
  const servers: { stop(): Promise<void> }[] = [];
  return {
    app,
    deps,
    db,
    queues,
    async newOrg() {
      const org = await createTestOrganization(db);
      const keys = {} as Record<Permission, string>;
      for (const permission of ['read', 'write', 'admin'] as const) {
        keys[permission] = (await createApiKey(db, { organizationId: org.id, name: permission, permission })).key;
      }
      return { id: org.id, keys, auth: (permission = 'admin') => ({ Authorization: `Bearer ${keys[permission]}` }) };
    },
    async newBot(org, fields = {}, setup = {}) {
      const body = { name: 'test bot', targetUrl: 'https://a.example', ...fields };
      const res = await request(app).post('/api/v1/bots').set(org.auth('write')).send(body);
      if (res.status !== 201) throw new Error(`creating a bot failed: ${res.status} ${JSON.stringify(res.body)}`);
      const botId = res.body.id as string;
      const admin = org.auth('admin');
      if (setup.manifest) {
        const manifest = await request(app).put(`/api/v1/bots/${botId}/manifest`).set(admin).send(setup.manifest);
        if (manifest.status !== 200) {
          throw new Error(`manifest refused: ${manifest.status} ${JSON.stringify(manifest.body)}`);
        }
      }
      if (setup.steps) {
        const steps = await request(app).put(`/api/v1/bots/${botId}/steps`).set(admin).send({ steps: setup.steps });
        if (steps.status !== 200) throw new Error(`steps refused: ${steps.status} ${JSON.stringify(steps.body)}`);
      }
      return botId;
    },
    async listen(overrides = {}) {
      const api = await startApi({
        db,
        redis: redisSettings,
        queuePrefix: queues.prefix,
        logger: deps.logger,
        secretBox: deps.secretBox,
        port: 0,
        settings: { ...deps.settings, ...overrides },
        artifactStore: deps.artifactStore,
        ops: deps.ops,
      });
      servers.push(api);
      return { port: api.port };
    },
    async close() {
      await Promise.all(servers.map((server) => server.stop()));
      await live.stop();
      await streamSlots.close();
      await queues.close();
      await closeRedis(redis);
      await db.$disconnect();
    },
  };
}

/**
 * Registers beforeAll/afterAll for a harness and one organization in a test file, handing them
 * to `use` once they exist.
 */
export function useApiHarness(
  use: (harness: ApiHarness, org: TestOrg) => void,
  overrides: Partial<ApiSettings> = {},
): void {
  let harness: ApiHarness | undefined;
  beforeAll(async () => {
    harness = await createApiHarness(overrides);
    use(harness, await harness.newOrg());
  });
  afterAll(() => harness?.close());
}
