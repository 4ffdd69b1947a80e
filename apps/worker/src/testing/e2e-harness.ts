import { createApiHarness, type ApiHarness, type TestOrg } from '@botfleet/api/testing';
import { createLogger, type RoleHandle } from '@botfleet/core';
import { startDelivery } from '@botfleet/delivery';
import { testRedisUrl, waitUntil } from '@botfleet/testkit';
import request from 'supertest';
import { startWorker, type WorkerOptions } from '../start-worker';

/** GET /executions/:executionId as the harness reads it: the status, and the rest for assertions. */
export interface ExecutionView {
  status: string;
  [key: string]: unknown;
}

export interface E2eHarness {
  api: ApiHarness;
  org: TestOrg;
  worker: RoleHandle;
  /** Creates a bot with optional manifest and steps; returns its id. */
  createBot(spec: {
    targetUrl: string;
    kind?: 'extraction' | 'action';
    manifest?: object;
    steps?: object[];
  }): Promise<string>;
  /** Triggers a run and returns the execution id. */
  trigger(botId: string, params?: Record<string, unknown>): Promise<string>;
  /** Polls until the execution reaches a final state; returns its view. */
  waitForFinal(executionId: string, timeoutMs?: number): Promise<ExecutionView>;
  get(path: string): request.Test;
  /** Starts a delivery role on the harness's queues (fast retries, loopback receivers allowed). */
  startDelivery(): Promise<RoleHandle>;
  close(): Promise<void>;
}

/** The API and a worker on one queue prefix, real PostgreSQL, Redis and Chromium. */
export async function createE2eHarness(workerOptions: Partial<WorkerOptions> = {}): Promise<E2eHarness> {
  const api = await createApiHarness();
  const org = await api.newOrg();
  const worker = await startWorker({
    db: api.db,
    redisUrl: testRedisUrl(),
    queuePrefix: api.queues.prefix,
    logger: createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    concurrency: 2,
    proxyUrls: [],
    defaultTimeoutSeconds: 30,
    sweepIntervalMs: 60_000,
    sweepOrganizationId: org.id,
    // Signed as the launcher wires it: the API's key and base URL, so the API accepts the URLs.
    artifactUrls: {
      signingKey: api.deps.settings.urlSigningKey,
      baseUrl: api.deps.settings.publicBaseUrl,
      ttlSeconds: api.deps.settings.screenshotUrlTtlSeconds,
    },
    ...workerOptions,
  });
  const get = (path: string) => request(api.app).get(path).set(org.auth('read'));

  return {
    api,
    org,
    worker,
    get,
    createBot: ({ targetUrl, kind = 'extraction', manifest, steps }) =>
      api.newBot(org, { name: 'e2e', targetUrl, kind }, { manifest, steps }),
    async trigger(botId, params) {
      const res = await request(api.app)
        .post(`/api/v1/bots/${botId}/executions`)
        .set(org.auth('write'))
        .send(params ? { params } : {});
      if (res.status !== 202) throw new Error(`trigger: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.executionId as string;
    },
    async waitForFinal(executionId, timeoutMs = 30_000) {
      return waitUntil(
        async () => {
          const view: ExecutionView = (await get(`/api/v1/executions/${executionId}`)).body;
          return ['completed', 'failed', 'cancelled'].includes(view.status) && view;
        },
        { timeoutMs, intervalMs: 50, message: `execution ${executionId} never finished` },
      );
    },
    startDelivery: () =>
      startDelivery({
        db: api.db,
        redisUrl: testRedisUrl(),
        queuePrefix: api.queues.prefix,
        logger: createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
        secretBox: api.deps.secretBox,
        concurrency: 2,
        allowPrivateNetwork: true,
        timeoutMs: 2_000,
        retryDelaysMs: [100],
      }),
    async close() {
      await worker.stop();
      await api.close();
    },
  };
}
