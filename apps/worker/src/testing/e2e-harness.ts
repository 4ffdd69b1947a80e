import { createApiHarness, type ApiHarness, type TestOrg } from '@botfleet/api/src/testing/api-harness';
import { createLogger, type RoleHandle } from '@botfleet/core';
import { waitUntil } from '@botfleet/runner/src/testing';
import request from 'supertest';
import { startWorker, type WorkerOptions } from '../start-worker';

export interface E2eHarness {
  api: ApiHarness;
  org: TestOrg;
  worker: RoleHandle;
  /** Creates a bot with optional manifest and steps; returns its id. */
  createBot(spec: { targetUrl: string; kind?: 'extraction' | 'action'; manifest?: object; steps?: object[] }): Promise<string>;
  /** Triggers a run and returns the execution id. */
  trigger(botId: string, params?: Record<string, unknown>): Promise<string>;
  /** Polls until the execution reaches a final state; returns its view. */
  waitForFinal(executionId: string, timeoutMs?: number): Promise<{ status: string; [key: string]: unknown }>;
  get(path: string): request.Test;
  close(): Promise<void>;
}

/** The API and a worker on one queue prefix, real PostgreSQL, Redis and Chromium. */
export async function createE2eHarness(workerOptions: Partial<WorkerOptions> = {}): Promise<E2eHarness> {
  const api = await createApiHarness();
  const org = await api.newOrg();
  const worker = await startWorker({
    db: api.db,
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    queuePrefix: api.queues.prefix,
    logger: createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    concurrency: 2,
    proxyUrls: [],
    defaultTimeoutSeconds: 30,
    sweepIntervalMs: 60_000,
    sweepOrganizationId: org.id,
    ...workerOptions,
  });
  const get = (path: string) => request(api.app).get(path).set(org.auth('read'));

  return {
    api,
    org,
    worker,
    get,
    async createBot(spec) {
      const bot = await request(api.app).post('/api/v1/bots').set(org.auth('write')).send({ name: 'e2e', targetUrl: spec.targetUrl, kind: spec.kind ?? 'extraction' });
      if (bot.status !== 201) throw new Error(`create bot: ${bot.status} ${JSON.stringify(bot.body)}`);
      if (spec.manifest) {
        const res = await request(api.app).put(`/api/v1/bots/${bot.body.id}/manifest`).set(org.auth('write')).send(spec.manifest);
        if (res.status !== 200) throw new Error(`manifest: ${res.status} ${JSON.stringify(res.body)}`);
      }
      if (spec.steps) {
        const res = await request(api.app).put(`/api/v1/bots/${bot.body.id}/steps`).set(org.auth('write')).send({ steps: spec.steps });
        if (res.status !== 200) throw new Error(`steps: ${res.status} ${JSON.stringify(res.body)}`);
      }
      return bot.body.id as string;
    },
    async trigger(botId, params) {
      const res = await request(api.app).post(`/api/v1/bots/${botId}/executions`).set(org.auth('write')).send(params ? { params } : {});
      if (res.status !== 202) throw new Error(`trigger: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.executionId as string;
    },
    async waitForFinal(executionId, timeoutMs = 30_000) {
      let view: { status: string } = { status: 'unknown' };
      await waitUntil(
        async () => {
          view = (await get(`/api/v1/executions/${executionId}`)).body;
          return ['completed', 'failed', 'cancelled'].includes(view.status);
        },
        { timeoutMs, intervalMs: 50, message: `execution ${executionId} never finished` },
      );
      return view;
    },
    async close() {
      await worker.stop();
      await api.close();
    },
  };
}
