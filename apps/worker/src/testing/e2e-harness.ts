import { createApiHarness, type ApiHarness, type TestOrg } from '@botfleet/api/testing';
import type { RoleHandle } from '@botfleet/core';
import { waitUntil } from '@botfleet/testkit';
import request from 'supertest';
import type { WorkerOptions } from '../start-worker';
import { startTestDelivery, startTestWorker } from './test-roles';

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
  /** An artifact's bytes through its signed URL (no API key), as the console and the trace viewer fetch it. */
  download(signedUrl: string): Promise<{ status: number; contentType: string; body: Buffer }>;
  /** Starts a delivery role on the harness's queues (fast retries, loopback receivers allowed). */
  startDelivery(): Promise<RoleHandle>;
  close(): Promise<void>;
}

/**
 * The API and a worker on one queue prefix, real PostgreSQL, Redis and Chromium. An
 * `artifactStore` given for the worker is the API's too (the caller closes it).
 */
export async function createE2eHarness(workerOptions: Partial<WorkerOptions> = {}): Promise<E2eHarness> {
  // The API serves what the worker stored: both read and write the same artifact store.
  const api = await createApiHarness({}, { artifactStore: workerOptions.artifactStore });
  const org = await api.newOrg();
  const worker = await startTestWorker(api, org, workerOptions);
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
    async download(signedUrl) {
      const { pathname, search } = new URL(signedUrl);
      const res = await request(api.app)
        .get(pathname + search)
        .buffer(true)
        .parse((response, done) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => done(null, Buffer.concat(chunks)));
        });
      return { status: res.status, contentType: String(res.headers['content-type']), body: res.body as Buffer };
    },
    startDelivery: () => startTestDelivery(api),
    async close() {
      await worker.stop();
      await api.close();
    },
  };
}
